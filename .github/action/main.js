// main: nothing, when pre has started the agent. A local action
// (uses: ./) has no pre step run for it, and a runner may have no Go
// before the job's steps set it up: main starts the agent then.
'use strict';
require('./lib').start('main');
