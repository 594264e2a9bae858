/** Stops the local control plane that global setup started, if it started one. */
export default async function globalTeardown(): Promise<void> {
  await globalThis.tandemLocalControlPlane?.stop();
}
