// post: after the job's last step, its steps become phases and the job
// ends: summary, artifacts, export.
'use strict';
require('./lib').stop();
