import Glibc
import ParleyCore

/// A listening socket; hands each accepted descriptor to `onAccept` on the loop thread.
final class TCPListener: EventHandler {
    let loop: EventLoop
    let fd: Int32
    private let onAccept: (Int32) -> Void
    private var closed = false

    init(loop: EventLoop, fd: Int32, onAccept: @escaping (Int32) -> Void) {
        self.loop = loop
        self.fd = fd
        self.onAccept = onAccept
    }

    func handleEvent(readable: Bool, writable: Bool, hangup: Bool) {
        for _ in 0..<64 {
            do {
                guard let client = try Socket.accept(fd) else { return }
                onAccept(client)
            } catch {
                Log.warning(.core, "accept: \(error)")
                return
            }
        }
    }

    func loopStopping() { close() }

    func close() {
        guard !closed else { return }
        closed = true
        loop.deregister(fd)
        Glibc.close(fd)
    }
}
