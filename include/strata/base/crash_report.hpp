#pragma once
// A crash report for programs: on a fatal signal (segmentation fault, bus error, illegal
// instruction, arithmetic error) the program name, the signal, the faulting address and the
// stack, one frame a line as module(+offset), go to standard error before the signal ends the
// process as it would have. A crash in a driver or in Strata is then located from the report
// (`addr2line -e MODULE OFFSET` on the unstripped build). Not installed under a sanitizer, whose
// own report is better.

namespace strata {

// Installs the report for the whole process; `program` must outlive it (argv[0], a literal).
void install_crash_report(const char* program);

}  // namespace strata
