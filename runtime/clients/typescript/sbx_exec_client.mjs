// sbx_exec_client: a Node 20 client of `sbx exec-server`
// (docs/exec-protocol.md), no dependencies. Plain JavaScript (an ES
// module Node runs as is), typed for TypeScript by sbx_exec_client.d.ts.
// One Client per connection: the server is a child on pipes; its lines
// are taken apart as they come: replies settle the call that waits,
// output goes to each process, approval requests to the approver.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export class RpcError extends Error {
  constructor(error) {
    super(`${error.code}: ${error.message}`);
    this.code = error.code;
    this.data = error.data;
  }
}

export class Process {
  constructor(client, id, onOutput) {
    this.client = client;
    this.id = id;
    this.onOutput = onOutput;
    this.stdout = [];
    this.stderr = [];
    this.nextSeq = { stdout: 0, stderr: 0 };
    this.exited = null;
    this.done = new Promise((resolve) => (this.settle = resolve));
  }

  deliver(m) {
    const p = m.params;
    if (m.method === 'process/output') {
      // seq counts per stream from 0: a gap would be output lost.
      if (p.seq !== this.nextSeq[p.stream])
        throw new Error(`output seq ${p.seq}, expected ${this.nextSeq[p.stream]}`);
      this.nextSeq[p.stream]++;
      const data = Buffer.from(p.data, 'base64');
      (p.stream === 'stdout' ? this.stdout : this.stderr).push(data);
      if (this.onOutput) this.onOutput(p.stream, data);
    } else if (m.method === 'process/exited') {
      this.exited = p;
      this.settle(p.result);
    }
  }

  /** Bytes written to the command's stdin; resolves to how many were taken. */
  async write(data) {
    const r = await this.client.call('process/write', {
      id: this.id,
      data: Buffer.from(data).toString('base64'),
    });
    return r.written;
  }

  closeStdin() {
    return this.client.call('process/closeStdin', { id: this.id });
  }

  terminate() {
    return this.client.call('process/terminate', { id: this.id });
  }

  /** sbx exec's result object (null when the run gave none). */
  wait() {
    return this.done;
  }

  output(stream) {
    return Buffer.concat(stream === 'stderr' ? this.stderr : this.stdout);
  }
}

export class Client {
  /** argv: the server's command line; approver(params) -> reply or a promise of one. */
  constructor(argv, approver) {
    this.approver = approver;
    this.child = spawn(argv[0], argv.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
    this.nextId = 0;
    this.waiting = new Map();
    this.processes = new Map();
    this.early = new Map(); // notifications of an id process/start has not returned yet
    this.closed = new Promise((resolve) => this.child.on('close', resolve));
    createInterface({ input: this.child.stdout }).on('line', (line) => this.onLine(line));
    this.child.stdout.on('close', () => {
      for (const w of this.waiting.values())
        w.reject(new RpcError({ code: -32603, message: 'connection closed' }));
      this.waiting.clear();
    });
  }

  static async connect(argv, approver) {
    const c = new Client(argv, approver);
    c.serverInfo = await c.call('initialize', { protocolVersion: 1 });
    return c;
  }

  send(msg) {
    this.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\n');
  }

  call(method, params) {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.send(params === undefined ? { id, method } : { id, method, params });
    });
  }

  async start(request, onOutput) {
    const r = await this.call('process/start', request);
    const p = new Process(this, r.id, onOutput);
    this.processes.set(p.id, p);
    // One thread: what came before the reply is delivered first, in order.
    for (const m of this.early.get(p.id) || []) p.deliver(m);
    this.early.delete(p.id);
    return p;
  }

  async approve(m) {
    let reply = null;
    try {
      reply = this.approver ? await this.approver(m.params) : null;
    } catch {
      reply = null; // an approver that fails denies
    }
    if (!reply || typeof reply !== 'object')
      reply = { decision: 'deny', reason: 'the client has no answer' };
    this.send({ id: m.id, result: reply });
  }

  onLine(line) {
    const m = JSON.parse(line);
    if (m.method === 'approval/request') {
      this.approve(m);
    } else if (m.method) {
      const p = this.processes.get(m.params.id);
      if (p) p.deliver(m);
      else {
        if (!this.early.has(m.params.id)) this.early.set(m.params.id, []);
        this.early.get(m.params.id).push(m);
      }
    } else {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (m.error) w.reject(new RpcError(m.error));
      else w.resolve(m.result);
    }
  }

  /** Ends the connection (the server kills what still runs); resolves to its exit code. */
  close() {
    this.child.stdin.end();
    return this.closed;
  }
}
