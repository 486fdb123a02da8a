// CloudFront Function (runtime cloudfront-js-2.0) on viewer requests of the console's default
// behaviour, and run as it is by the local front door (local/front-door.ts): a path whose last
// segment has no dot is a page of the single-page app and is answered with /index.html; anything
// else (/assets/index-3f2a.js, /favicon.svg) is a file. /api/* and /v1/* never reach it.
// CloudFront calls the function by this name.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
function handler(event) {
  var request = event.request;
  var last = request.uri.split('/').pop();
  if (last.indexOf('.') === -1) request.uri = '/index.html';
  return request;
}
