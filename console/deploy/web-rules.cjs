/**
 * How each file of console/dist is served: its Content-Type and Cache-Control. One place for the
 * deploy (console/deploy/serverless-plugin.cjs sets them as S3 object metadata, which CloudFront
 * passes on) and the local front door (local/front-door.ts). CommonJS because Serverless Framework 3
 * loads the plugin with require().
 */
const path = require('node:path');
const { readFileSync } = require('node:fs');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.woff2': 'font/woff2',
};

function contentType(key) {
  return TYPES[path.extname(key).toLowerCase()] || 'application/octet-stream';
}

/** Vite names everything under assets/ by its content hash: such a file never changes. */
function cacheControl(key) {
  return key.replace(/^\/+/, '').startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
}

/** The CloudFront response headers policy (security-headers.json) as plain header pairs. */
function securityHeaders() {
  const policy = JSON.parse(readFileSync(path.join(__dirname, 'security-headers.json'), 'utf8'));
  const s = policy.SecurityHeadersConfig;
  const headers = {
    'Content-Security-Policy': s.ContentSecurityPolicy.ContentSecurityPolicy,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': s.FrameOptions.FrameOption,
    'Referrer-Policy': s.ReferrerPolicy.ReferrerPolicy,
    'Strict-Transport-Security': `max-age=${s.StrictTransportSecurity.AccessControlMaxAgeSec}${s.StrictTransportSecurity.IncludeSubdomains ? '; includeSubDomains' : ''}${s.StrictTransportSecurity.Preload ? '; preload' : ''}`,
  };
  for (const item of policy.CustomHeadersConfig.Items) headers[item.Header] = item.Value;
  return headers;
}

/** Text files CloudFront compresses (it compresses these types from 1,000 bytes up). */
function compressible(key) {
  return /^(text\/|application\/json|image\/svg\+xml|application\/manifest\+json)/.test(contentType(key));
}

module.exports = { contentType, cacheControl, securityHeaders, compressible };
