import { ApiError, ok, type ApiOperation, type ApiRequest, type HttpHelpers, type JsonSchema } from '@hearth/plugin-api';
import type { RepoTemplates } from './templates';

function nameParam(description: string): JsonSchema {
  return {
    type: 'object',
    properties: { name: { type: 'string', minLength: 1, maxLength: 255, description } },
    required: ['name'],
  };
}

type NameRequest = ApiRequest<unknown, unknown, { name: string }>;

/**
 * The license's API URL as Gitea builds it with Go's url.PathEscape, which leaves '+' as is
 * (`/licenses/GPL-2.0+`); SPDX ids have no other character that needs escaping.
 */
function licenseUrl(http: HttpHelpers, key: string): string {
  return http.apiUrl(`/licenses/${encodeURIComponent(key).replace(/%2B/g, '+')}`);
}

/**
 * `/gitignore/templates*` and `/licenses*`: the templates a new repository can start from.
 * Public data, as in Gitea: no sign-in, and any token works whatever its scope.
 */
export function templateOperations(templates: RepoTemplates, http: HttpHelpers): ApiOperation[] {
  return [
    {
      method: 'get',
      path: '/gitignore/templates',
      operationId: 'listGitignoresTemplates',
      tag: 'miscellaneous',
      summary: 'Returns a list of all gitignore templates',
      scopes: 'public',
      access: 'anyone',
      responses: { 200: { description: 'GitignoreTemplateList', schema: { type: 'array', items: { type: 'string' } } } },
      handler: () => ok(templates.gitignoreNames()),
    },
    {
      method: 'get',
      path: '/gitignore/templates/{name}',
      operationId: 'getGitignoreTemplateInfo',
      tag: 'miscellaneous',
      summary: 'Returns information about a gitignore template',
      scopes: 'public',
      access: 'anyone',
      params: nameParam('name of the template'),
      responses: { 200: 'GitignoreTemplateInfo' },
      handler: (req: NameRequest) => {
        const template = templates.gitignore(req.params.name);
        if (!template) throw ApiError.notFound(`gitignore template does not exist [name: ${req.params.name}]`);
        return ok(template);
      },
    },
    {
      method: 'get',
      path: '/licenses',
      operationId: 'listLicenseTemplates',
      tag: 'miscellaneous',
      summary: 'Returns a list of all license templates',
      scopes: 'public',
      access: 'anyone',
      responses: { 200: { description: 'LicenseTemplateList', schema: { type: 'array', items: { $ref: 'LicensesTemplateListEntry' } } } },
      // Gitea 1.20 sends the SPDX id as both key and name; clients pass either back as `license`.
      handler: () => ok(templates.licenses().map(({ key }) => ({ key, name: key, url: licenseUrl(http, key) }))),
    },
    {
      method: 'get',
      path: '/licenses/{name}',
      operationId: 'getLicenseTemplateInfo',
      tag: 'miscellaneous',
      summary: 'Returns information about a license template',
      scopes: 'public',
      access: 'anyone',
      params: nameParam('name of the license'),
      responses: { 200: 'LicenseTemplateInfo' },
      handler: (req: NameRequest) => {
        const license = templates.license(req.params.name);
        if (!license) throw ApiError.notFound(`license template does not exist [name: ${req.params.name}]`);
        const { key, body, implementation } = license;
        return ok({ key, name: key, url: licenseUrl(http, key), implementation, body });
      },
    },
  ];
}
