// The words of a hot reload, shared by the server that ends the episodes of replaced environment
// code (lib/playground.ts) and the episode page that says why they ended. Isomorphic: no server code.

/** Every recorded error of an episode ended by a reload starts with this. */
export const ENVIRONMENT_RELOADED = "environment reloaded";

/** The recorded error of an episode whose environment's code was replaced while it ran. */
export function environmentReloadedError(env: string, changed: readonly string[]): string {
  const what =
    changed.length === 0 ? "its code" : changed.slice(0, 3).join(", ") + (changed.length > 3 ? ", …" : "");
  return `${ENVIRONMENT_RELOADED}: ${what} changed while this episode of ${env} ran on the old code. Start a new episode (Restart on this task) to use the new code.`;
}

/** Whether a recorded episode error says the episode ended because its environment was reloaded. */
export function isEnvironmentReloaded(error: string | null | undefined): boolean {
  return typeof error === "string" && error.startsWith(`${ENVIRONMENT_RELOADED}:`);
}
