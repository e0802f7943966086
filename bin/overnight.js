#!/usr/bin/env node
'use strict';

// CommonJS (bin/package.json): Node's ES module loader is not even started. The bundle's chunks
// are compiled by load.js, with V8's code cache when one was made for this build.
require('./load.js').start(require('node:path').join(__dirname, '..', 'dist'), 'main.js');
