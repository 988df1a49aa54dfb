import Foundation
import ParleyCrypto
import ParleyStore

/// Entry point of the `parley` command line: dispatch, error reporting, exit status.
func runCLI(_ arguments: [String], environment: [String: String]) -> Int32 {
    guard let command = arguments.first, !["-h", "--help", "help"].contains(command) else {
        print(usage)
        return arguments.isEmpty ? 2 : 0
    }
    if arguments.contains("--help") || arguments.contains("-h") {
        print(usage)
        return 0
    }
    do {
        switch command {
        case "keys": return try KeysCommand.run(Array(arguments.dropFirst()))
        case "apps": return try AppsCommand.run(Array(arguments.dropFirst()))
        case "endpoints": return try EndpointsCommand.run(Array(arguments.dropFirst()))
        case "account": return try AccountCommand.run(Array(arguments.dropFirst()))
        case "token": return try TokenCommand.run(Array(arguments.dropFirst()), environment: environment)
        case "netsim": return try NetsimCommand.run(Array(arguments.dropFirst()))
        case "preflight": return try PreflightCommand.run(Array(arguments.dropFirst()), environment: environment)
        case "demo" where arguments.dropFirst().first == "rooms": return try RoomsDemoCommand.run(Array(arguments.dropFirst(2)))
        case "demo": return try DemoCommand.run(Array(arguments.dropFirst()))
        case "room": return try RoomCommand.run(Array(arguments.dropFirst()), environment: environment)
        case "call": return try CallCommand.call(Array(arguments.dropFirst()), environment: environment)
        case "listen": return try CallCommand.listen(Array(arguments.dropFirst()), environment: environment)
        case "endpoint": return try EndpointCommand.run(Array(arguments.dropFirst()))
        default: throw UsageError("unknown command \(command)")
        }
    } catch let error as UsageError {
        Output.error("parley: \(error.description)\nRun `parley --help` for usage.")
        return 2
    } catch let error as StoreError {
        Output.error("parley: \(error.description)")
        return 1
    } catch {
        Output.error("parley: \(error)")
        return 1
    }
}

OpenSSLRuntime.keepStateUntilExit()
exit(runCLI(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
