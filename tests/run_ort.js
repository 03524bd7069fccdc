// Runs an ONNX model with onnxruntime-node: node run_ort.js MODEL INPUT_NAME INPUT.bin DIMS OUTPUT.bin
// INPUT.bin holds float32 little-endian values of shape DIMS ("2,3,128,128"); the
// first output is written the same way. Exit 1 with onnxruntime's message when the
// model cannot be loaded or run.
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, 'npm', 'node_modules', 'onnxruntime-node'));

async function main() {
  const [model, inputName, inputFile, dimsText, outputFile] = process.argv.slice(2);
  const bytes = fs.readFileSync(inputFile);
  const data = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  const dims = dimsText.split(',').map(Number);
  const session = await ort.InferenceSession.create(model);
  const results = await session.run({ [inputName]: new ort.Tensor('float32', data, dims) });
  const output = results[session.outputNames[0]];
  fs.writeFileSync(outputFile, Buffer.from(output.data.buffer, output.data.byteOffset, output.data.byteLength));
  console.log(JSON.stringify({ output: session.outputNames[0], dims: output.dims }));
}

main().catch((error) => {
  console.error(String(error.message || error).split('\n')[0]);
  process.exit(1);
});
