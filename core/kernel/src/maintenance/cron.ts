import type { Logger } from '@hearth/plugin-api';
import {
  ApiError,
  GO_ZERO_TIME,
  noContent,
  nowUnix,
  unixToIso,
  type ApiOperation,
  type ApiRequest,
  type CronTask,
  type HttpHelpers,
} from '@hearth/plugin-api';

interface TaskState {
  task: CronTask;
  prev: number;
  next: number;
  execTimes: number;
  running: Promise<void> | null;
  timer?: NodeJS.Timeout;
}

/** Go's time.Duration text of whole seconds (`1h0m0s`, `5m0s`, `30s`), as Gitea prints `@every …`. */
function goDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h ? `${h}h${m}m${s}s` : m ? `${m}m${s}s` : `${s}s`;
}

/**
 * The server's periodic jobs (the kernel's leftover sweep, plugins' through `ctx.cron.add`):
 * each runs every `intervalSeconds` from the moment the server listens, never overlapping itself,
 * and can be run at once by a site admin (`POST /admin/cron/{task}`).
 */
export class CronRegistry {
  private readonly tasks = new Map<string, TaskState>();
  private started = false;

  constructor(private readonly log: Logger) {}

  add(task: CronTask): void {
    if (!/^[a-z][a-z0-9_]*$/.test(task.name)) throw new Error(`cron task name "${task.name}" must be snake_case`);
    if (this.tasks.has(task.name)) throw new Error(`cron task "${task.name}" is registered twice`);
    if (!(task.intervalSeconds >= 0)) throw new Error(`cron task "${task.name}": intervalSeconds must be ≥ 0`);
    const state: TaskState = { task, prev: 0, next: 0, execTimes: 0, running: null };
    this.tasks.set(task.name, state);
    if (this.started) this.schedule(state);
  }

  /** Start the timers (the server listens). */
  start(): void {
    this.started = true;
    for (const state of this.tasks.values()) this.schedule(state);
  }

  /** Stop the timers and wait for the runs under way (shutdown). */
  async stop(): Promise<void> {
    this.started = false;
    for (const state of this.tasks.values()) clearInterval(state.timer);
    await Promise.all([...this.tasks.values()].map((s) => s.running));
  }

  /** Run a task now (skipped while it runs); resolves when that run ends. */
  run(name: string): Promise<void> {
    const state = this.tasks.get(name);
    if (!state) throw ApiError.notFound(`cron task does not exist [name: ${name}]`);
    state.running ??= (async () => {
      state.prev = nowUnix();
      state.execTimes++;
      try {
        await state.task.run();
      } catch (err) {
        this.log.error({ err, task: name }, 'a cron task failed');
      } finally {
        state.running = null;
        if (state.task.intervalSeconds > 0 && this.started) state.next = nowUnix() + state.task.intervalSeconds;
      }
    })();
    return state.running;
  }

  /** Gitea's `Cron` JSON of every task, by name. */
  list(): Array<{ name: string; schedule: string; next: string; prev: string; exec_times: number }> {
    return [...this.tasks.values()]
      .sort((a, b) => a.task.name.localeCompare(b.task.name))
      .map((s) => ({
        name: s.task.name,
        schedule: s.task.intervalSeconds > 0 ? `@every ${goDuration(s.task.intervalSeconds)}` : '',
        // Never (yet): Go's zero time, as Gitea prints it.
        next: s.next ? unixToIso(s.next) : GO_ZERO_TIME,
        prev: s.prev ? unixToIso(s.prev) : GO_ZERO_TIME,
        exec_times: s.execTimes,
      }));
  }

  private schedule(state: TaskState): void {
    if (state.task.intervalSeconds <= 0) return;
    state.next = nowUnix() + state.task.intervalSeconds;
    state.timer = setInterval(() => void this.run(state.task.name), state.task.intervalSeconds * 1000);
    state.timer.unref();
  }
}

/** `GET /admin/cron` and `POST /admin/cron/{task}` (site admins). */
export function cronOperations(cron: CronRegistry, http: HttpHelpers): ApiOperation[] {
  const base = { tag: 'admin', scopes: ['admin'] as ['admin'], auth: 'siteAdmin' as const, access: 'site-admin' as const };
  return [
    {
      ...base,
      method: 'get',
      path: '/admin/cron',
      operationId: 'adminCronList',
      summary: 'List cron tasks',
      paged: true,
      responses: { 200: { description: 'CronList', schema: { type: 'array', items: { $ref: 'Cron' } } } },
      handler: async (req: ApiRequest) => {
        const all = cron.list();
        return http.paged(req, all.slice(req.paging.offset, req.paging.offset + req.paging.limit), all.length);
      },
    },
    {
      ...base,
      method: 'post',
      path: '/admin/cron/{task}',
      operationId: 'adminCronRun',
      summary: 'Run cron task',
      params: { type: 'object', properties: { task: { type: 'string', maxLength: 255, description: 'task to run' } }, required: ['task'] },
      responses: { 204: 'empty', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { task: string }>) => {
        // As Gitea: the task starts, the answer does not wait for it.
        void cron.run(req.params.task);
        return noContent();
      },
    },
  ];
}
