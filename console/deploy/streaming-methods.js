import cf from 'cloudfront';

// CloudFront Function (runtime cloudfront-js-2.0) on viewer requests of the streaming behaviours
// (/v1/chat/completions, /v1/responses, /v1/messages, /bedrock/model/*/converse-stream,
// /bedrock/model/*/invoke-with-response-stream). Their function URLs serve one method, POST;
// a behaviour that allows POST must allow all seven methods, so this sends every other one (a GET, a
// CORS preflight) to the HTTP API instead, as the local front door does (local/front-door.ts): the
// API answers a preflight from its CORS settings and anything else with its 404 in OpenAI's shape.
// CloudFront calls the function by this name.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
function handler(event) {
  if (event.request.method !== 'POST') cf.selectRequestOriginById('api');
  return event.request;
}
