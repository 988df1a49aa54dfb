import Dispatch
import Foundation
import ParleyCore
import ParleyCrypto
import ParleyNet
import ParleyServer
import ParleyStore

// parley-server: the platform. See `parley-server --help`.
OpenSSLRuntime.keepStateUntilExit()
let configuration: ServerConfiguration
do {
    configuration = try ServerConfiguration.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data((error.message + "\n").utf8))
    exit(error.isHelp ? 0 : 2)
}
Log.setLevel(configuration.logLevel)
// Every connection is a descriptor: use all the system allows (the accept path keeps a reserve).
ProcessLimits.raiseDescriptorLimit()

// Taken over before the server starts, so a SIGTERM right after the "listening" line still
// ends it gracefully.
let termination = TerminationSignal()
let server: PlatformServer
do {
    server = try PlatformServer(configuration: configuration)
    try server.start()
} catch {
    Log.fatal(.platform, "cannot start: \(error)")
    FileHandle.standardError.write(Data("parley-server: cannot start: \(error)\n".utf8))
    exit(1)
}
let scheme = configuration.tlsCertificatePath == nil ? "http" : "https"
// One line on stdout says where the server is, so scripts can wait for it.
FileHandle.standardOutput.write(Data(
    "parley-server listening on \(scheme)://\(configuration.host):\(server.port) account \(server.defaultCredentials.account.sid)\n".utf8))

// Graceful shutdown on SIGTERM and SIGINT: stop accepting, finish in-flight requests, exit 0.
let received = await termination.next()
Log.info(.platform, "signal \(received): shutting down")
await server.shutdown()
exit(0)
