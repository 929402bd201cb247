// docs/admin-api.md's table of routes, written from the route declarations of adminApi.ts, so that
// a route added there is on the page (test/declarations.test.ts holds the page to it).
import { z } from 'zod';
import { schemaFields as fieldsOf } from '../wire/schemaFields.ts';
import { ADMIN_ROUTE_LIST, type AdminRoute } from './adminApi.ts';

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** `GET /admin/v1/organizations?limit=&after=&before=`: the method, the path and the query's fields. */
function routeLine(route: AdminRoute): string {
  const query = route.query instanceof z.ZodObject ? Object.keys(route.query.shape as object) : [];
  return `${route.method.toUpperCase()} ${route.path}${query.length ? `?${query.map((name) => `${name}=`).join('&')}` : ''}`;
}

function answerOf(route: AdminRoute): string {
  const fields = fieldsOf(route.answer);
  if (route.download) return `a file (\`${route.download.mediaType}\`)${fields ? `, with the headers of ${fields}` : ''}`;
  return fields ? `\`${fields}\`` : 'the object';
}

/** The table: method and path, body, answer, and what the route does (with its signet command). */
export function adminRouteTable(routes: readonly AdminRoute[] = ADMIN_ROUTE_LIST): string {
  const rows = routes.map((route) => {
    const body = fieldsOf(route.body);
    const command = route.cli ? ` (\`signet ${route.cli.name} ${route.cli.sub}\`)` : '';
    const what = [route.summary.replace(/\.$/, ''), route.description].filter(Boolean).join('. ');
    return `| \`${routeLine(route)}\` | ${body ? `\`${body}\`` : '–'} | ${answerOf(route)} | ${cell(what)}${command} |`;
  });
  return ['| Method and path | Body | Answer | What it does |', '|---|---|---|---|', ...rows].join('\n');
}
