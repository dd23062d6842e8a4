// The two Node baselines of tests/bench/bench_tee.sh, on the same function
// and input as the isolated worker:
//   node bench_tee_node.js threads CODE INPUT_FILE ROUNDS REPEATS
//     a worker_threads Worker that gets {code, input} by postMessage,
//     compiles the code with new Function() and posts the result back (the
//     seed's design); mean round trip per repeat, then the median.
//   node bench_tee_node.js child CODE INPUT_FILE
//     one evaluation, as a node spawned per evaluation runs it.
'use strict';
const fs = require('fs');
const [mode, code, inputFile, roundsArg, repeatsArg] = process.argv.slice(2);
const text = fs.readFileSync(inputFile, 'utf8');
function evaluate(source, input) {
  return new Function('return (' + source + ');')()(input);
}
if (mode === 'child') {
  process.stdout.write(JSON.stringify(evaluate(code, JSON.parse(text))) + '\n');
} else if (mode === 'threads') {
  const { Worker } = require('worker_threads');
  const worker = new Worker(
    "const { parentPort } = require('worker_threads');\n" +
      "parentPort.on('message', (m) => {\n" +
      "  const f = new Function('return (' + m.code + ');')();\n" +
      "  parentPort.postMessage({ ok: true, value: f(m.input) });\n" +
      '});',
    { eval: true });
  const input = JSON.parse(text);
  const rounds = Number(roundsArg), repeats = Number(repeatsArg);
  const per = [];
  let left = 0, t0 = 0n;
  function next() {
    if (left === 0) {
      if (t0 !== 0n) {
        per.push(Number(process.hrtime.bigint() - t0) / 1000 / rounds);
        console.log(`repeat ${per.length}: ${per[per.length - 1].toFixed(1)} us`);
      }
      if (per.length === repeats) {
        per.sort((a, b) => a - b);
        console.log(`median ${per[Math.floor(repeats / 2)].toFixed(1)} us`);
        process.exit(0);
      }
      left = rounds;
      t0 = process.hrtime.bigint();
    }
    left--;
    worker.postMessage({ code, input });
  }
  let first = true;
  worker.on('message', (m) => {
    if (first) {
      console.log('result ' + JSON.stringify(m.value));
      first = false;
      t0 = 0n;
      left = 0;
    }
    next();
  });
  worker.postMessage({ code, input }); // the first round: start-up, not timed
} else {
  process.stderr.write('usage: see the head of this file\n');
  process.exit(2);
}
