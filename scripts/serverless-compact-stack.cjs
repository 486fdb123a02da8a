'use strict';
/**
 * Serverless plugin: keeps the CloudFormation stack small enough to grow. Serverless Framework v3
 * gives every function a log group and (with serverless-iam-roles-per-function) a role of its own,
 * beside its function, permission, API Gateway integration and route, and a version when functions
 * are versioned: seven resources a function, 345 of CloudFormation's 500 for 48 functions. This plugin
 * rewrites the compiled template, after every other plugin has written its part:
 *
 *   - one log group for every function (`<service>-<stage>-functions`, with the stage's retention),
 *     through Lambda's logging configuration (LoggingConfig.LogGroup): Lambda names each log stream
 *     after its function (`YYYY/MM/DD/<function>[<version>]<environment>`), so a shared group keeps
 *     every line attributable, and the roles may write to that one group only;
 *   - one role per distinct set of statements: functions whose roles would grant exactly the same
 *     statements (once each role's log statement names the shared group) share one role. Nothing is
 *     granted to any function beyond what its own functions.yml lists; only the copies go;
 *   - one role that API Gateway assumes to invoke the HTTP functions (the integrations'
 *     CredentialsArn), instead of a resource-based permission on every function: AWS documents both
 *     ways for a Lambda proxy integration, and the role is one resource however many functions there
 *     are. It may invoke exactly the functions the HTTP API's routes name (each by its ARN), and only
 *     API Gateway may assume it; a role passed to an integration must be in the account that creates it
 *     (iam:PassRole), so no other account's API can use it. The function URLs' and the schedule's
 *     permissions stay as they are;
 *   - no DependsOn that a Ref, Fn::GetAtt or Fn::Sub of the same resource already implies (cfn-lint's
 *     W3005): the framework writes one on every function (its role, which the function's Role already
 *     names) and route, and the shared log group is named by every function's LoggingConfig. The
 *     order CloudFormation creates things in is the same; the template says it once.
 *
 * Function versions are switched off in serverless.yml (`versionFunctions: false`): nothing here
 * invokes a version, and a version kept per deploy filled the account's code storage over time.
 *
 * What is left per HTTP function is its function, its integration and its route: three resources,
 * so the stack has room for well over 40 more functions. The test
 * tests/unit/package-template.test.ts counts them and runs cfn-lint over the result.
 * CommonJS because serverless 3 loads local plugins with require().
 */
const { createHash } = require('node:crypto');

const SHARED_LOG_GROUP = 'FunctionsLogGroup';
const INVOKE_ROLE = 'HttpApiInvokeRole';

/** Replaces every reference to a logical id (Ref, Fn::GetAtt, DependsOn) anywhere in a value. */
function renameReferences(value, from, to) {
  if (Array.isArray(value)) return value.map((v) => (v === from ? to : renameReferences(v, from, to)));
  if (!value || typeof value !== 'object') return value;
  const out = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === 'Ref' && v === from) out[key] = to;
    else if (key === 'Fn::GetAtt' && Array.isArray(v) && v[0] === from) out[key] = [to, ...v.slice(1)];
    else if (key === 'DependsOn' && v === from) out[key] = to;
    else out[key] = renameReferences(v, from, to);
  }
  return out;
}

const dependsOn = (resource) => (resource.DependsOn === undefined ? [] : [].concat(resource.DependsOn));

/** The logical ids a value refers to: Ref, Fn::GetAtt (list or "Id.Attribute") and Fn::Sub's ${Id} / ${Id.Attribute}. */
function referencedIds(value, found = new Set()) {
  if (Array.isArray(value)) {
    for (const v of value) referencedIds(v, found);
  } else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === 'Ref' && typeof v === 'string') found.add(v);
      else if (key === 'Fn::GetAtt') found.add(Array.isArray(v) ? v[0] : String(v).split('.')[0]);
      else if (key === 'Fn::Sub') {
        const text = Array.isArray(v) ? v[0] : v;
        // ${!Literal} is an escaped dollar, not a reference.
        for (const m of String(text).matchAll(/\$\{([^!}][^}.]*)(?:\.[^}]*)?\}/g)) found.add(m[1]);
        if (Array.isArray(v)) referencedIds(v[1], found);
      } else referencedIds(v, found);
    }
  }
  return found;
}

/** Each resource's DependsOn without what its own references already imply (and without repeats). */
function dropImpliedDependsOn(resources) {
  for (const resource of Object.values(resources)) {
    if (resource.DependsOn === undefined) continue;
    const implied = referencedIds({ Properties: resource.Properties, Metadata: resource.Metadata });
    const kept = [...new Set(dependsOn(resource))].filter((id) => !implied.has(id));
    if (kept.length === 0) delete resource.DependsOn;
    else resource.DependsOn = kept;
  }
  return resources;
}

class CompactStack {
  constructor(serverless) {
    this.serverless = serverless;
    // serverless-iam-roles-per-function writes its roles on this same event; it is listed before this plugin.
    this.hooks = { 'before:package:finalize': () => this.compact() };
  }

  compact() {
    const service = this.serverless.service;
    const template = service.provider.compiledCloudFormationTemplate;
    const resources = template.Resources;
    const functions = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::Lambda::Function');
    this.shareLogGroup(service, resources, functions);
    this.invokeThroughOneRole(resources);
    template.Resources = dropImpliedDependsOn(this.shareRoles(resources));
  }

  shareLogGroup(service, resources, functions) {
    const own = new Map(); // a function's log group logical id -> its retention
    for (const [, fn] of functions) {
      for (const id of dependsOn(fn)) if (resources[id]?.Type === 'AWS::Logs::LogGroup') own.set(id, resources[id].Properties.RetentionInDays);
    }
    if (own.size === 0) return;
    const retention = Math.max(...[...own.values()].filter((d) => d > 0));
    resources[SHARED_LOG_GROUP] = {
      Type: 'AWS::Logs::LogGroup',
      Properties: { LogGroupName: `${service.service}-${service.provider.stage}-functions`, RetentionInDays: retention },
    };
    for (const id of own.keys()) delete resources[id];
    for (const [, fn] of functions) {
      // LoggingConfig's Ref (below) orders the group before the function.
      fn.DependsOn = dependsOn(fn).filter((id) => !own.has(id));
      fn.Properties.LoggingConfig = { ...fn.Properties.LoggingConfig, LogGroup: { Ref: SHARED_LOG_GROUP } };
    }
    // Every role's log statement named its function's own group: now the shared one.
    const sharedArn = { 'Fn::Sub': `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:\${${SHARED_LOG_GROUP}}:*` };
    for (const role of Object.values(resources).filter((r) => r.Type === 'AWS::IAM::Role')) {
      for (const policy of role.Properties.Policies ?? []) {
        for (const statement of [].concat(policy.PolicyDocument.Statement)) {
          const actions = [].concat(statement.Action ?? []);
          if (actions.length > 0 && actions.every((a) => a.startsWith('logs:'))) {
            statement.Action = ['logs:CreateLogStream', 'logs:PutLogEvents'];
            statement.Resource = [sharedArn];
          }
        }
      }
    }
  }

  invokeThroughOneRole(resources) {
    const permissions = Object.entries(resources).filter(
      ([, r]) => r.Type === 'AWS::Lambda::Permission' && r.Properties.Principal === 'apigateway.amazonaws.com',
    );
    if (permissions.length === 0) return;
    // The framework names the function by Fn::GetAtt [<Function>, Arn], in the permission and in the integration alike.
    const functionOf = (value) => (value && Array.isArray(value['Fn::GetAtt']) ? value['Fn::GetAtt'][0] : undefined);
    const invoked = [...new Set(permissions.map(([, p]) => functionOf(p.Properties.FunctionName)))];
    if (invoked.some((id) => id === undefined)) {
      throw new Error('serverless-compact-stack: an API Gateway permission names its function otherwise than by Fn::GetAtt');
    }
    resources[INVOKE_ROLE] = {
      Type: 'AWS::IAM::Role',
      Properties: {
        AssumeRolePolicyDocument: {
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Principal: { Service: ['apigateway.amazonaws.com'] }, Action: ['sts:AssumeRole'] }],
        },
        Policies: [
          {
            PolicyName: 'invoke-http-functions',
            PolicyDocument: {
              Version: '2012-10-17',
              Statement: [{ Effect: 'Allow', Action: ['lambda:InvokeFunction'], Resource: invoked.map((id) => ({ 'Fn::GetAtt': [id, 'Arn'] })) }],
            },
          },
        ],
      },
    };
    const names = new Set(invoked);
    for (const r of Object.values(resources)) {
      if (r.Type === 'AWS::ApiGatewayV2::Integration' && names.has(functionOf(r.Properties.IntegrationUri))) {
        r.Properties.CredentialsArn = { 'Fn::GetAtt': [INVOKE_ROLE, 'Arn'] };
      }
    }
    const gone = new Set(permissions.map(([id]) => id));
    for (const id of gone) delete resources[id];
    for (const r of Object.values(resources)) {
      if (r.DependsOn === undefined) continue;
      const kept = dependsOn(r).filter((id) => !gone.has(id));
      if (kept.length === 0) delete r.DependsOn;
      else r.DependsOn = kept;
    }
  }

  shareRoles(resources) {
    const kept = new Map(); // what a role grants -> the logical id of the role kept for it
    const renames = [];
    for (const [id, role] of Object.entries(resources)) {
      if (role.Type !== 'AWS::IAM::Role') continue;
      const { RoleName, ...grants } = role.Properties;
      const policies = (grants.Policies ?? []).map((p) => p.PolicyDocument);
      const fingerprint = JSON.stringify({ ...grants, Policies: policies });
      const first = kept.get(fingerprint);
      if (first === undefined) {
        kept.set(fingerprint, id);
        // A role may now serve several functions: CloudFormation names it, not after one of them.
        if (RoleName !== undefined) {
          delete role.Properties.RoleName;
          for (const policy of role.Properties.Policies ?? []) {
            policy.PolicyName = `grants-${createHash('sha256').update(fingerprint).digest('hex').slice(0, 12)}`;
          }
        }
      } else renames.push([id, first]);
    }
    let out = resources;
    for (const [from, to] of renames) {
      delete out[from];
      out = renameReferences(out, from, to);
    }
    return out;
  }
}

module.exports = CompactStack;
