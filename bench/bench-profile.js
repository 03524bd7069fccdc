// The baseline of bench-profile.py: onnxruntime-node profiling a model itself.
//   node bench-profile.js MODEL FEEDS.json RUNS WARMUP LEVEL THREADS TRACE_DIR
// FEEDS.json maps each input to [type, dims] ("float32" or "int64"); values are zeros,
// as onyx-cli's --fill zeros makes them. The session is created with the profiler on,
// the optimization level and intra-op threads asked for (0: its default), runs
// WARMUP + RUNS times, and ends profiling: the trace is left in TRACE_DIR. Prints
// {"session": s, "runs": s}.
const path = require('path');
const ort = require(path.join(__dirname, '..', 'tests', 'npm', 'node_modules', 'onnxruntime-node'));
const fs = require('fs');

async function main() {
  const [model, feedsFile, runs, warmup, level, threads, traceDir] = process.argv.slice(2);
  const options = { graphOptimizationLevel: level, enableProfiling: true,
                    profileFilePrefix: path.join(traceDir, 'trace') };
  if (Number(threads) > 0)
    options.intraOpNumThreads = Number(threads);
  const feeds = {};
  for (const [name, [type, dims]] of Object.entries(JSON.parse(fs.readFileSync(feedsFile, 'utf8')))) {
    const count = dims.reduce((a, b) => a * b, 1);
    feeds[name] = new ort.Tensor(type, type === 'int64' ? new BigInt64Array(count) : new Float32Array(count), dims);
  }
  let start = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(model, options);
  const created = Number(process.hrtime.bigint() - start) / 1e9;
  start = process.hrtime.bigint();
  for (let i = 0; i < Number(warmup) + Number(runs); i++)
    await session.run(feeds);
  session.endProfiling();
  console.log(JSON.stringify({ session: created, runs: Number(process.hrtime.bigint() - start) / 1e9 }));
}

main().catch((error) => {
  console.error(String(error.message || error).split('\n')[0]);
  process.exit(1);
});
