// Package safefile writes the files lagscope leaves behind (saved samples,
// snapshots, a watch window, an SVG) so that no other local user can read
// them or steer the write:
//
//   - the data goes to a new file created with O_EXCL and mode 0600 under a
//     random temporary name in the target's directory (os.CreateTemp), never
//     to a path that already exists: a symlink planted there is not
//     followed, and nobody else can open the file while it is written;
//   - it is synced and renamed onto the target, which replaces whatever was
//     there (a file or a symlink, never the symlink's target) at once: a
//     crash before the rename leaves the old file whole and a stray
//     temporary file beside it, never half a file under the target's name.
//
// A file written here is 0600 even when it replaces one that was more open:
// to share it, change its mode afterwards.
package safefile
