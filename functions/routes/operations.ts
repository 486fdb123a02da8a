// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The operations of functions/routes/: their words, parameters, request bodies and answers. Routes come from functions.yml, roles from the handlers. */
import { Type } from '@sinclair/typebox';

import { Route, RouteResponse } from './response-schemas';
import { NextCursor } from '../system/response-schemas';
import { Parameters, Ref, RequestSchema, errors, type Operations } from '../../lib/http/contract';
import { CreateRouteBody, ListRoutesQuery, RoutePath, UpdateRouteBody } from './schemas';

export const operations: Operations = {
  /** GET /api/routes */
  listRoutes: {
    tags: ['routes'],
    summary: 'Routes: every route for admins, those they may call for users',
    description: `Roles: user, admin, super_admin. Admins get every route, by name; users the routes with a
target they may call, showing only those targets.
`,
    parameters: new Parameters({ query: ListRoutesQuery }, [{ $ref: '#/components/parameters/Limit' }, { $ref: '#/components/parameters/Cursor' }]),
    responses: {
      '200': {
        description: 'One page of routes.',
        content: {
          'application/json': {
            schema: Type.Object(
              { success: Type.Unsafe<true>({ const: true }), routes: Type.Array(Ref(Route)), nextCursor: Ref(NextCursor) },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 413, 415, 500, 503),
    },
  },

  /** POST /api/routes */
  createRoute: {
    tags: ['routes'],
    summary: 'Create a route',
    description: `Roles: admin, super_admin. A route is a name /v1 callers may send as \`model\` for several
resources of one kind (chat or embeddings), tried in priority order or by weight, falling over
on the failures \`retry_on\` lists before the first byte (docs/routes.md). Its name shares the
namespace of resource names: one a resource or another route holds is 409. Recorded in the
audit log (\`route.create\`).
`,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(CreateRouteBody, 'CreateRouteRequest', {
            '/properties/name': { description: 'Unique among resource and route names in any case; sent as `model` on /v1.' },
            '/properties/targets': { description: 'Resources of one kind (chat or embeddings), in priority order.' },
            '/properties/targets/items/properties/resource_id': {
              description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).',
              format: 'uuid',
            },
            '/properties/targets/items/properties/weight': { description: 'The share of calls under `weighted` (default 1).' },
            '/properties/cooldown_seconds': { description: 'How long a target that failed is skipped, in seconds (30 when not given).' },
            '/properties/retry_on': { description: 'The failures that fall over (default all of them).' },
          }),
        },
      },
    },
    responses: {
      '201': { description: 'The route.', content: { 'application/json': { schema: Ref(RouteResponse) } } },
      ...errors('api', 400, 401, 403, 409, 413, 415, 500, 503),
    },
  },

  /** GET /api/routes/{routeId} */
  getRoute: {
    tags: ['routes'],
    summary: "A route, with its targets' status and cooldowns",
    description: 'Roles: user, admin, super_admin. A user sees a route with a target they may call (404 otherwise), and only those targets.',
    parameters: new Parameters({ path: RoutePath }, [
      {
        name: 'routeId',
        in: 'path',
        description: "The route's id.",
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
    ]),
    responses: {
      '200': { description: 'The route.', content: { 'application/json': { schema: Ref(RouteResponse) } } },
      ...errors('api', 400, 401, 404, 413, 415, 500, 503),
    },
  },

  /** DELETE /api/routes/{routeId} */
  deleteRoute: {
    tags: ['routes'],
    summary: 'Delete a route',
    description: 'Roles: admin, super_admin. The route and its name; its resources are untouched. Recorded in the audit log (`route.delete`).',
    parameters: new Parameters({ path: RoutePath }, [
      {
        name: 'routeId',
        in: 'path',
        description: "The route's id.",
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
    ]),
    responses: {
      '200': { description: 'The route as it was.', content: { 'application/json': { schema: Ref(RouteResponse) } } },
      ...errors('api', 400, 401, 403, 404, 413, 415, 500, 503),
    },
  },

  /** PATCH /api/routes/{routeId} */
  updateRoute: {
    tags: ['routes'],
    summary: 'Change a route',
    description: `Roles: admin, super_admin. Any of the fields of POST /api/routes; a new name frees the old one.
409 when the name is held, or when the route changed meanwhile (read it again). Recorded in the
audit log (\`route.update\`).
`,
    parameters: new Parameters({ path: RoutePath }, [
      {
        name: 'routeId',
        in: 'path',
        description: "The route's id.",
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
    ]),
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(UpdateRouteBody, 'UpdateRouteRequest', {
            '/properties/name': { description: 'Unique among resource and route names in any case; sent as `model` on /v1.' },
            '/properties/targets/items/properties/resource_id': {
              description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).',
              format: 'uuid',
            },
            '/properties/targets/items/properties/weight': { description: 'The share of calls under `weighted` (default 1).' },
          }),
        },
      },
    },
    responses: {
      '200': { description: 'The route as it is now.', content: { 'application/json': { schema: Ref(RouteResponse) } } },
      ...errors('api', 400, 401, 403, 404, 409, 413, 415, 500, 503),
    },
  },
};
