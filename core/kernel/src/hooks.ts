import { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncBailHook } from 'tapable';
import type { KernelHooks, Logger } from '@hearth/plugin-api';

/** The tap record tapable hands to a `register` interceptor. */
interface RegisteredTap {
  name: string;
  type: 'sync' | 'async' | 'promise';
  fn: (...args: any[]) => any;
}

/**
 * Build the kernel's frozen hook object. Notification hooks (things that already happened) get
 * an interceptor that contains each tap: a tap that throws is logged under its name and the
 * request, and the other taps, go on. Decision hooks (authenticate, verifyPassword, passwordAccepted, errorPage,
 * mutate, creating, deleting, media, routes) propagate errors, because a throw there is how a tap says no.
 */
export function createHooks(log: Logger): KernelHooks {
  const notify = <H extends AsyncSeriesHook<any> | AsyncParallelHook<any>>(hook: H, name: string): H => {
    hook.intercept({ register: (tap: any) => containTap(tap as RegisteredTap, name, log) as any });
    return hook;
  };
  const hooks: KernelHooks = {
    auth: Object.freeze({
      authenticate: new AsyncSeriesBailHook<[any], any>(['request']),
      verifyPassword: new AsyncSeriesBailHook<[any], any>(['check']),
      passwordAccepted: new AsyncSeriesHook<[any]>(['accepted']),
    }),
    http: Object.freeze({
      routes: new AsyncSeriesHook<[any]>(['registrar']),
      errorPage: new SyncBailHook<[any, any, any], any>(['error', 'request', 'response']),
    }),
    issue: Object.freeze({
      mutate: new AsyncSeriesWaterfallHook<[any, any]>(['mutation', 'context']),
    }),
    webhook: Object.freeze({
      emit: notify(new AsyncParallelHook<[any]>(['event']), 'webhook.emit'),
    }),
    user: Object.freeze({
      created: notify(new AsyncSeriesHook<[any]>(['event']), 'user.created'),
      renamed: notify(new AsyncSeriesHook<[any]>(['event']), 'user.renamed'),
      deleting: new AsyncSeriesHook<[any]>(['event']),
      deleted: notify(new AsyncSeriesHook<[any]>(['event']), 'user.deleted'),
    }),
    repository: Object.freeze({
      creating: new AsyncSeriesWaterfallHook<[any]>(['plan']),
      created: notify(new AsyncSeriesHook<[any]>(['event']), 'repository.created'),
      deleting: new AsyncSeriesHook<[any]>(['event']),
      deleted: notify(new AsyncSeriesHook<[any]>(['event']), 'repository.deleted'),
      renamed: notify(new AsyncSeriesHook<[any]>(['event']), 'repository.renamed'),
      transferred: notify(new AsyncSeriesHook<[any]>(['event']), 'repository.transferred'),
      media: new AsyncSeriesBailHook<[any], any>(['request']),
    }),
    push: Object.freeze({
      received: notify(new AsyncParallelHook<[any]>(['event']), 'push.received'),
    }),
    package: Object.freeze({
      published: notify(new AsyncSeriesHook<[any]>(['event']), 'package.published'),
      deleted: notify(new AsyncSeriesHook<[any]>(['event']), 'package.deleted'),
    }),
    lifecycle: Object.freeze({
      ready: notify(new AsyncSeriesHook<[]>([]), 'lifecycle.ready'),
      shutdown: notify(new AsyncSeriesHook<[]>([]), 'lifecycle.shutdown'),
    }),
  };
  return Object.freeze(hooks);
}

function containTap(tap: RegisteredTap, hookName: string, log: Logger): RegisteredTap {
  const fn = tap.fn;
  const report = (err: unknown) => log.error({ err, hook: hookName, tap: tap.name }, `hook tap "${tap.name}" on ${hookName} failed`);
  switch (tap.type) {
    case 'promise':
      tap.fn = (...args: unknown[]) =>
        Promise.resolve()
          .then(() => fn(...args))
          .catch(report);
      break;
    case 'async':
      tap.fn = (...args: unknown[]) => {
        const callback = args.pop() as (err?: unknown) => void;
        try {
          fn(...args, (err?: unknown) => {
            if (err) report(err);
            callback();
          });
        } catch (err) {
          report(err);
          callback();
        }
      };
      break;
    default:
      tap.fn = (...args: unknown[]) => {
        try {
          return fn(...args);
        } catch (err) {
          report(err);
          return undefined;
        }
      };
  }
  return tap;
}
