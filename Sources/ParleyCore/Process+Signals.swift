import Foundation

extension Process {
    /// Starts the process with no signal blocked. Foundation's `run()` gives the child the signal
    /// mask of the calling thread, and the threads that Swift tasks and Dispatch run on block
    /// nearly every signal, so a child started from them would ignore SIGTERM and SIGINT for its
    /// whole life (`terminate()` would not stop it). The mask is cleared on this thread only for
    /// the spawn.
    public func runWithDefaultSignals() throws {
        var empty = sigset_t(), previous = sigset_t()
        sigemptyset(&empty)
        pthread_sigmask(SIG_SETMASK, &empty, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try run()
    }
}
