// The baseline of bench-simplify.py: ONNX Runtime's basic graph optimizer, as
// onnxruntime-node runs it while creating a session, its result written to a file.
//   node bench-simplify.js MODEL OUT.onnx     optimize MODEL into OUT.onnx
//   node bench-simplify.js MODEL              only create a session (does MODEL load?)
// Prints {"create": s} on stdout: the session's creation, optimization and writing
// OUT included. Initializers of OUT from 1 kB up go to OUT.data beside it, so that a
// model with more than 2 GiB of weights can be written too.
const path = require('path');
const ort = require(path.join(__dirname, '..', 'tests', 'npm', 'node_modules', 'onnxruntime-node'));

async function main() {
  const [model, out] = process.argv.slice(2);
  const options = out === undefined ? {} : {
    graphOptimizationLevel: 'basic',
    optimizedModelFilePath: out,
    extra: {
      session: {
        optimized_model_external_initializers_file_name: path.basename(out) + '.data',
        optimized_model_external_initializers_min_size_in_bytes: '1024',
      },
    },
  };
  const start = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(model, options);
  const create = Number(process.hrtime.bigint() - start) / 1e9;
  await session.release();
  console.log(JSON.stringify({ create }));
}

main().catch((error) => {
  console.error(String(error.message || error).split('\n')[0]);
  process.exit(1);
});
