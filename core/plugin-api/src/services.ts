/**
 * Typed references to services one plugin provides and others use (Backstage's service refs):
 * the provider declares the ref in `provides` and hands the implementation to
 * `ctx.services.provide` in `apply`; a consumer declares it in `requires` (the loader refuses to
 * start without a provider, and applies the provider first) or `optional`, and reads it with
 * `ctx.services.get` / `ctx.services.optional`. Implementations are plain objects whose methods
 * take and return plain data, never row classes or query builders.
 */

/** @public */
export interface ServiceRef<T> {
  /** Unique id, by convention `<plugin>.<service>` (e.g. `issues.issues`). */
  readonly id: string;
  /** Carries the type only; never set. */
  readonly __type?: T;
}

/** Declare a service reference (export it from the providing plugin's package). @public */
export function createServiceRef<T>(id: string): ServiceRef<T> {
  if (!/^[a-z0-9][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)+$/.test(id))
    throw new Error(`service ref id "${id}" must look like "<plugin>.<service>"`);
  return Object.freeze({ id });
}

/** What `ctx.services` offers a plugin in `apply`. @public */
export interface ServiceRegistry {
  /** Provide an implementation of a ref this plugin lists in `provides` (once). */
  provide<T>(ref: ServiceRef<T>, implementation: T): void;
  /** A service this plugin lists in `requires`: always there (its provider was applied first). */
  get<T>(ref: ServiceRef<T>): T;
  /** A service this plugin lists in `optional`: undefined when no enabled plugin provides it. */
  optional<T>(ref: ServiceRef<T>): T | undefined;
}
