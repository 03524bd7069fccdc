// Runs an ONNX model with onnxruntime-node on any number of inputs:
//   node run_ort_all.js MODEL FEEDS.json OUT_DIR
// FEEDS.json maps each input name to {"type": "float32"|"int64"|"int32"|"bool"|"float64",
// "dims": [...], "file": raw little-endian values}. Every output is written to
// OUT_DIR/<n>.bin and described on stdout as [{"name", "type", "dims", "file"}].
// Exit 1 with onnxruntime's message when the model cannot be loaded or run.
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, 'npm', 'node_modules', 'onnxruntime-node'));

const ARRAYS = { float32: Float32Array, float64: Float64Array, int32: Int32Array,
                 int64: BigInt64Array, bool: Uint8Array };

async function main() {
  const [model, feedsFile, outDir] = process.argv.slice(2);
  const feeds = {};
  for (const [name, feed] of Object.entries(JSON.parse(fs.readFileSync(feedsFile, 'utf8')))) {
    const bytes = fs.readFileSync(feed.file);
    const copy = new Uint8Array(bytes).buffer;
    feeds[name] = new ort.Tensor(feed.type, new ARRAYS[feed.type](copy), feed.dims);
  }
  const session = await ort.InferenceSession.create(model);
  const results = await session.run(feeds);
  const described = session.outputNames.map((name, n) => {
    const output = results[name];
    const file = path.join(outDir, `${n}.bin`);
    fs.writeFileSync(file, Buffer.from(output.data.buffer, output.data.byteOffset, output.data.byteLength));
    return { name, type: output.type, dims: output.dims, file };
  });
  console.log(JSON.stringify(described));
}

main().catch((error) => {
  console.error(String(error.message || error).split('\n')[0]);
  process.exit(1);
});
