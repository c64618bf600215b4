// Cheat: #include files the student may not read (/etc/shadow, readable by a root judge) or that
// name the machine's users (/etc/passwd, readable by anyone). A compile error echoes the offending
// source line, so a judge that shows the compiler's output puts the file's lines into the Build
// verdict, i.e. into the student's feedback. No such file exists inside the judge's sandbox, and
// feedback shows only messages about the student's own file.
// APPLIES: all
// MODE: prepend
// EXPECT: build-fails: the included files do not exist for the compile, and no line of them may reach a verdict
// MARKER: root:x:0:0
// MARKER: daemon:
#include "/etc/passwd"
#include "/etc/shadow"
