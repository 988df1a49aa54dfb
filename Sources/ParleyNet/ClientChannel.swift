import Glibc
import ParleyCrypto

/// Opens client connections: resolution and `connect` off-loop, the channel on its loop.
enum ClientChannel {
    /// Resolves and starts connecting; returns the socket. May block on DNS: call from a task.
    static func connect(_ endpoint: Endpoint) throws(NetError) -> Int32 {
        let address = try SocketAddress.resolve(host: endpoint.host, port: endpoint.port)
        return try Socket.connect(to: address)
    }

    /// Loop thread: wraps a connecting socket (with TLS when `tlsContext` is set) for `delegate`.
    static func open(fd: Int32, loop: EventLoop, endpoint: Endpoint, tlsContext: TLSContext?,
                     delegate: any ChannelDelegate) throws(NetError) -> TCPChannel {
        var session: TLSSession?
        if endpoint.useTLS {
            guard let tlsContext else { Glibc.close(fd); throw .tls("no TLS context") }
            do {
                session = try TLSSession(context: tlsContext, serverName: endpoint.host)
            } catch {
                Glibc.close(fd)
                throw .tls(error.message)
            }
        }
        let channel = TCPChannel(loop: loop, fd: fd, tls: session, connecting: true)
        channel.delegate = delegate
        channel.start()
        return channel
    }
}
