/* MATLAB's undocumented Ctrl-C check, which the authors' auction mex calls
   (linked with -lut there); Octave has no such library. */
#include <stdbool.h>
bool utIsInterruptPending(void) { return false; }
