// pre: build or find jobtrace and start the job's agent, before the job's
// first step.
'use strict';
require('./lib').start('pre');
