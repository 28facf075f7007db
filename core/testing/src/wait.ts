/**
 * Poll `probe` until it gives a truthy value (returned), failing after `timeoutMs` with what was
 * awaited. For effects of background workers (webhook deliveries, mirrors); never for timing.
 */
export async function waitFor<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 20000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
