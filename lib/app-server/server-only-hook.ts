// Lets server code run under plain node (tsx): `import "server-only"` throws outside React's server
// bundles, so this maps it to the empty module it is on the server, as Next's react-server
// condition does. Call it first, before importing anything that imports "server-only".

const HOOK = `export async function resolve(specifier, context, next) {
  if (specifier === "server-only") return { url: "data:text/javascript,export{}", shortCircuit: true };
  return next(specifier, context);
}`;

let registered = false;

/** Registers the resolve hook once per process (Node's module.register; Node ≥ 20.6). */
export async function allowServerOnlyUnderNode(): Promise<void> {
  if (registered) return;
  registered = true;
  const { register } = await import("node:module");
  register(`data:text/javascript,${encodeURIComponent(HOOK)}`);
}
