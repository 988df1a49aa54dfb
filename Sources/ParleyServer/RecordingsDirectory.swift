import Foundation

/// The `--recordings` directory, made ready when the server starts so a mistake there stops the
/// start instead of every `<Record>` failing later.
enum RecordingsDirectory {
    /// Creates `path` if missing (mode 0700, as are missing parents) and proves it writable by
    /// creating, writing and removing a probe file. An existing directory keeps its mode.
    /// - Throws: `ConfigurationError` naming the path and the system's reason.
    static func prepare(_ path: String) throws(ConfigurationError) {
        guard !path.isEmpty else { throw ConfigurationError(message: "--recordings wants a directory") }
        try create(path)
        let probe = path + "/.parley-write-probe-\(getpid())-\(UInt32.random(in: .min ... .max))"
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure(path, "is not writable") }
        let byte: [UInt8] = [0]
        let written = write(fd, byte, 1)
        let writeErrno = errno
        close(fd)
        unlink(probe)
        guard written == 1 else {
            errno = writeErrno
            throw failure(path, "is not writable")
        }
    }

    /// `mkdir -p` with mode 0700.
    private static func create(_ path: String) throws(ConfigurationError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                errno = ENOTDIR
                throw failure(path, "is not a directory")
            }
            return
        }
        guard errno == ENOENT else { throw failure(path, "cannot be used") }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try create(parent) }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw failure(path, "cannot be created") }
    }

    private static func failure(_ path: String, _ what: String) -> ConfigurationError {
        ConfigurationError(message: "--recordings \(path) \(what): \(String(cString: strerror(errno)))")
    }
}
