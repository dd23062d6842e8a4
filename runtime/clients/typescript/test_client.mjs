// exec_client_typescript: the Node client against the real `sbx exec-server`:
// a process streamed, its stdin written, an approval allowed and denied,
// terminate, a bad request, the results. Exit 77 when no sandbox runs here.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, RpcError } from './sbx_exec_client.mjs';

let fails = 0;
function check(cond, name, detail) {
  console.log((cond ? 'ok: ' : 'FAIL: ') + name + (cond ? '' : ': ' + JSON.stringify(detail)));
  if (!cond) fails++;
}

const tmp = mkdtempSync(join(tmpdir(), 'exec-client-ts.'));
const ws = join(tmp, 'ws');
mkdirSync(ws);
process.env.SBX_STATE_DIR = join(tmp, 'state');
mkdirSync(process.env.SBX_STATE_DIR, { mode: 0o700 });
delete process.env.COMMANDER_SECURITY_PROFILE;
delete process.env.SBX_AUDIT_LOG;

const asked = [];
const c = await Client.connect(
  [process.env.SBX, 'exec-server', '--workspace', ws, '--approval-timeout', '10'],
  (req) => {
    asked.push(req);
    return { decision: req.run_id === 'yes' ? 'allow' : 'deny', scope: 'once' };
  });

let r = await (await c.start({ argv: ['true'] })).wait();
if (!r || r.sbx_exit !== 0) {
  const msg = JSON.stringify(r);
  if (/not supported by this kernel|user namespace|landlock/.test(msg)) {
    console.log('SKIP: ' + msg);
    await c.close();
    process.exit(77);
  }
}
check(r && r.sbx_exit === 0, 'a plain run', r);

const chunks = [];
const p = await c.start(
  { argv: ['python3', '-c', "import sys\nfor l in sys.stdin: print(l.strip()[::-1], flush=True)\nsys.exit(4)"] },
  (stream, data) => chunks.push([stream, data.toString()]));
check((await p.write('abc\n')) === 4, 'write stdin');
await p.write('xyz\n');
await p.closeStdin();
r = await p.wait();
check(p.output('stdout').toString() === 'cba\nzyx\n' && chunks.length > 0 && chunks[0][0] === 'stdout',
  'output streamed', chunks);
check(r.exit_code === 4 && r.stdout.data === '', 'the result', r);

const victim = join(ws, 'victim');
for (const [runId, gone] of [['yes', true], ['no', false]]) {
  writeFileSync(victim, '');
  r = await (await c.start({ argv: ['rm', victim], profile: 'standard', run_id: runId })).wait();
  check(existsSync(victim) !== gone && asked.length > 0 && asked.at(-1).operation === 'delete' &&
        r.approvals[0].decision === (gone ? 'allow' : 'deny'),
        `approval answered ${gone ? 'allow' : 'deny'}`, r);
}

const s = await c.start({ argv: ['sleep', '60'] });
await s.terminate();
await s.wait();
check(s.exited.signal || (s.exited.result || {}).outcome === 'interrupted', 'terminate', s.exited);

try {
  await c.start({ argv: 'ls' });
  check(false, 'a bad request rejects');
} catch (e) {
  check(e instanceof RpcError && e.code === -32602 && e.data.code === 'wrong_type',
    'a bad request rejects', e.data);
}
check((await c.close()) === 0, 'the server ends with the connection');
rmSync(tmp, { recursive: true, force: true });
console.log(`${fails} failure(s)`);
process.exit(fails ? 1 : 0);
