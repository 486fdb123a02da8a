/**
 * Serverless Framework variables for console/deploy/cloudfront.yml (`${file(console/deploy/cloudfront.cjs):spaRewrite}`):
 * the CloudFront Function's code as text, read from the file the local front door also runs.
 */
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

module.exports.spaRewrite = () => readFileSync(join(__dirname, 'spa-rewrite.js'), 'utf8');
module.exports.streamingMethods = () => readFileSync(join(__dirname, 'streaming-methods.js'), 'utf8');
