import crypto from 'node:crypto';
import type { RequestHandler } from 'express';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from '@hearth/plugin-api';

/** Prometheus metrics of one kernel (its own registry, so several kernels can share a process). */
export class HttpMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'hearth_http_requests_total',
    help: 'HTTP requests by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'hearth_http_request_duration_seconds',
    help: 'HTTP request duration by method and route template',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'hearth_' });
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.duration.observe({ method, route }, seconds);
  }
}

const INCOMING_ID = /^[\w.-]{1,64}$/;

/** A package format's token in the path (conda's `/api/packages/{owner}/conda/t/<token>/…`). */
const PATH_TOKEN = /^(\/api\/packages\/[^/]+\/[^/]+)\/t\/[^/]+/;

/** The path as logged: never the query string nor a token carried in the path. */
export function loggedPath(originalUrl: string): string {
  return originalUrl.split('?')[0].replace(PATH_TOKEN, '$1/t/[redacted]');
}

/**
 * Gives each request an id (a well-formed incoming X-Request-Id is kept, so ids follow a request
 * through proxies), a child logger carrying it, and on completion one log line and the metrics.
 * The logged path never includes the query string or a path token: they may carry a credential.
 */
export function requestContext(log: Logger, metrics: HttpMetrics | null, logRequests: boolean): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && INCOMING_ID.test(incoming) ? incoming : crypto.randomUUID();
    const started = process.hrtime.bigint();
    res.locals.requestId = requestId;
    // Most requests never log from a handler: build the child logger only when asked for.
    let child: Logger | undefined;
    Object.defineProperty(res.locals, 'log', { get: () => (child ??= log.child({ requestId })), enumerable: true });
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (res.locals.route as string | undefined) ?? 'unmatched';
      metrics?.observe(req.method, route, res.statusCode, seconds);
      if (logRequests) {
        log.info(
          {
            requestId,
            method: req.method,
            path: loggedPath(req.originalUrl),
            route,
            status: res.statusCode,
            ms: Math.round(seconds * 1e4) / 10,
          },
          'request',
        );
      }
    });
    next();
  };
}
