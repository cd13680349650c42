// Package safefile opens, creates and replaces the files jobtrace writes
// without following symbolic links, so that nobody who can write to a
// directory jobtrace writes in (a shared output directory, /tmp) can make it
// write somewhere else by planting a link there.
//
// The rules, for every file jobtrace writes:
//   - the last component of the path is never followed: a symbolic link
//     there is refused (O_NOFOLLOW where the system has it);
//   - an existing file must be a regular file with one link: a FIFO, a
//     socket, a directory or a second hard link to someone else's file is
//     refused (OpenLog also takes a character device, for /dev/null or a
//     terminal);
//   - a file that is replaced as a whole is written under a new name made
//     with O_CREATE|O_EXCL in the same directory and renamed over the old
//     one, so a reader never sees half of it; the temporary file is removed
//     whatever fails; on Linux it is written without a name (O_TMPFILE)
//     and named only to be renamed, so that a process killed while it
//     writes leaves nothing either;
//   - a private directory (PrivateDir) must be a directory, not a link,
//     owned by the user jobtrace runs as, with no access for group or
//     others; anything else is refused.
//
// The directories above the last component are followed: they are the
// path the user chose (an output directory that is a link to another disk
// works). OwnLink tells a link the user made from one another user planted
// where the user's path leads, for the output directory itself.
//
// Every writer of jobtrace goes through this package; a test of the source
// tree checks that no other package calls os.Create, os.WriteFile,
// os.CreateTemp, os.Rename or os.OpenFile with a write flag, nor open(2)
// itself (syscall, x/sys/unix) with a write flag and without O_NOFOLLOW.
package safefile
