package figure

// DurationJS defines the JavaScript function dur(ms), which writes a
// duration given in milliseconds by the rule of Duration, for a page's
// script that writes times in the browser (report.html's crosshair). It
// is Duration's arithmetic on whole nanoseconds, exact up to 2^53 ns
// (104 days) in JavaScript's numbers; TestDurationJS runs it against
// Duration.
const DurationJS = `function dur(ms) {
  function div(a, b) { return (a - a % b) / b; }
  function two(v) { return (v < 10 ? "0" : "") + v; }
  var d = Math.round(ms * 1e6);
  if (!(d > 0)) return "0s";
  if (d < 1e3) return d + "ns";
  var bands = [[1e3, 1e6, "µs"], [1e6, 1e9, "ms"], [1e9, 6e10, "s"]];
  for (var i = 0; i < bands.length; i++) {
    var unit = bands[i][0], below = bands[i][1];
    if (d >= below) continue;
    for (var dec = 2, step = unit / 100; dec >= 0; dec--, step *= 10) {
      var q = div(d + step / 2, step);
      if (q < 1000 && q * step < below) {
        var p = Math.pow(10, dec), f = q % p, s = String(div(q, p));
        while (dec > 0 && f % 10 === 0) { f /= 10; dec--; }
        if (dec > 0) s += "." + (dec === 2 && f < 10 ? "0" : "") + f;
        return s + bands[i][2];
      }
    }
  }
  var sec = div(d + 5e8, 1e9);
  if (sec < 3600) return div(sec, 60) + "m" + two(sec % 60) + "s";
  var min = div(d + 3e10, 6e10);
  return div(min, 60) + "h" + two(min % 60) + "m";
}`
