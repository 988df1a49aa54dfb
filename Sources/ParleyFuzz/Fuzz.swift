// libFuzzer harness and regression replayer for Parley's pure parsers.
//
//   Fuzz:   scripts/fuzz http 600         (builds with -sanitize=fuzzer,address; see docs/FUZZING.md)
//   Replay: parley-fuzz replay http FILE…  (plain build; make test replays fuzz/regressions/)
#if PARLEY_FUZZING
import Foundation

/// Chosen once from `PARLEY_FUZZ_TARGET`, since libFuzzer owns `main` and the command line.
private let selectedTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["PARLEY_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        FileHandle.standardError.write(Data("set PARLEY_FUZZ_TARGET to one of \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))\n".utf8))
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func parleyFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    selectedTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
#else
import Foundation

@main
struct ParleyFuzzReplay {
    static func main() {
        let args = CommandLine.arguments.dropFirst()
        guard args.count >= 2, args.first == "replay", let target = FuzzTarget(rawValue: args.dropFirst().first!) else {
            FileHandle.standardError.write(Data("usage: parley-fuzz replay \(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")) FILE|DIR…\n".utf8))
            exit(2)
        }
        var count = 0
        for path in args.dropFirst(2) {
            for file in files(at: path) {
                guard let bytes = FileManager.default.contents(atPath: file) else { continue }
                bytes.withUnsafeBytes { target.run($0) }
                count += 1
            }
        }
        print("replayed \(count) inputs through \(target.rawValue) without a crash")
    }

    static func files(at path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [] }
        guard isDirectory.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { path + "/" + $0 }
    }
}
#endif
