// The baseline of bench-run.py: onnxruntime-node's plain run of a model.
//   node bench-run.js MODEL FEEDS.json
// FEEDS.json maps each float32 input to its dims; values are zeros (the time of a run
// does not depend on them). Prints {"load": s, "run": s} on stdout: session creation,
// and the run with every output handed back to JavaScript.
const path = require('path');
const ort = require(path.join(__dirname, '..', 'tests', 'npm', 'node_modules', 'onnxruntime-node'));
const fs = require('fs');

async function main() {
  const [model, feedsFile] = process.argv.slice(2);
  const feeds = {};
  for (const [name, dims] of Object.entries(JSON.parse(fs.readFileSync(feedsFile, 'utf8'))))
    feeds[name] = new ort.Tensor('float32', new Float32Array(dims.reduce((a, b) => a * b, 1)), dims);
  let start = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(model);
  const load = Number(process.hrtime.bigint() - start) / 1e9;
  start = process.hrtime.bigint();
  const results = await session.run(feeds);
  const run = Number(process.hrtime.bigint() - start) / 1e9;
  if (Object.keys(results).length !== session.outputNames.length)
    throw new Error('outputs missing');
  console.log(JSON.stringify({ load, run }));
}

main().catch((error) => {
  console.error(String(error.message || error).split('\n')[0]);
  process.exit(1);
});
