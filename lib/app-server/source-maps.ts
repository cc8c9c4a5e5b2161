// Node's source maps in the production server: off. tsx (`node --import tsx`) turns them on for the
// whole process, and Node then reads and keeps the source map of every module that names one: the
// Next server's and the build's chunks (docs/benchmarks.md "The recording relay's memory").
/**
 * Turns Node's source maps off for modules loaded from now on, before Next loads. Stack traces
 * then name positions in the code as it runs; an author's environment module still gets its map
 * (lib/environments/module-loader.ts turns them on while it loads), so its load errors name its lines.
 */
export function sourceMapsOffForProduction(): void {
  process.setSourceMapsEnabled(false);
}
