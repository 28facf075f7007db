import { startServer, type TestServer } from './helpers/server';

let server: TestServer;
let doc: any;

beforeAll(async () => {
  server = await startServer();
  doc = (await server.api('GET', '//swagger.v1.json')).body;
});
afterAll(() => server.close());

/** Generated clients (Gitea SDKs, openapi-generator) break on documents that violate these rules. */
describe('the served OpenAPI document is well-formed Swagger 2.0', () => {
  test('every {parameter} of a path is declared as a required path parameter, and nothing else is', () => {
    const problems: string[] = [];
    for (const [path, methods] of Object.entries<any>(doc.paths)) {
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      for (const [method, op] of Object.entries<any>(methods)) {
        const declared = (op.parameters ?? []).filter((p: any) => p.in === 'path');
        const names = declared.map((p: any) => p.name).sort();
        if (JSON.stringify(names) !== JSON.stringify(inPath))
          problems.push(`${method.toUpperCase()} ${path}: path has ${inPath.join(',')} but declares ${names.join(',')}`);
        for (const p of declared) if (p.required !== true) problems.push(`${method.toUpperCase()} ${path}: ${p.name} not required`);
      }
    }
    expect(problems).toEqual([]);
  });

  test('operation ids are unique and every operation has a tag, a summary and a 2xx answer', () => {
    const seen = new Map<string, string>();
    const problems: string[] = [];
    for (const [path, methods] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(methods)) {
        const where = `${method.toUpperCase()} ${path}`;
        if (seen.has(op.operationId)) problems.push(`${where}: operationId ${op.operationId} also used by ${seen.get(op.operationId)}`);
        seen.set(op.operationId, where);
        if (!op.tags?.length || !op.summary) problems.push(`${where}: missing tag or summary`);
        if (!Object.keys(op.responses).some((s) => /^2\d\d$/.test(s))) problems.push(`${where}: no 2xx response`);
      }
    }
    expect(problems).toEqual([]);
    expect(seen.size).toBeGreaterThan(100);
  });

  test('every $ref resolves to a definition', () => {
    const refs = new Set(JSON.stringify(doc).match(/#\/definitions\/[\w.-]+/g) ?? []);
    const missing = [...refs].map((r) => r.split('/').pop()!).filter((name) => !(name in doc.definitions));
    expect(missing).toEqual([]);
  });
});
