// Module resolve hook for `scripts/serve.ts`: under plain node, `import "server-only"` resolves to an
// empty module (as it does under Next.js's react-server condition), so server-only environments load.
export async function resolve(specifier, context, nextResolve) {
  if (specifier === "server-only") return { url: "data:text/javascript,export{}", shortCircuit: true };
  return nextResolve(specifier, context);
}
