import Foundation
import Glibc
import ParleyCore
import ParleyTestSupport
import SpeechScoring

/// `parley-bench call-quality`: the real call path under a simulated network. Each call is a
/// `CallQualityCall` (in-process server, `NetworkRelay` on every hop, two `ParleyVoice` calls);
/// bob's recording of alice's speech (Harvard list 2, espeak-ng, male and female voice) is scored
/// with PESQ-WB. Several calls run at once (`--parallel`); the table gives, per condition, the
/// mean and minimum score over the seeds, what bob's `Call.stats()` showed, and what alice sent.
///
///   parley-bench call-quality [--seeds N (5)] [--condition NAME] [--output DIR] [--parallel N (3)]
enum CallQualityBench {
    static let usage = """
        usage: parley-bench call-quality [--seeds N (5)] [--condition NAME] [--output DIR] [--parallel N (3)]
          conditions (end to end; the relay applies half on each hop): \(CallQualityCondition.all.map(\.name).joined(separator: ", "))
          --output keeps alice's microphone, the reference and bob's recordings (WAV) in DIR
        """

    struct Options {
        var seeds = 5
        var conditions = CallQualityCondition.all
        var output: String?
        var parallel = 3
    }

    static func parse(_ arguments: ArraySlice<String>) throws -> Options {
        var options = Options()
        var rest = arguments
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw BenchFailure("\(flag) needs a value\n\(usage)") }
            switch flag {
            case "--seeds":
                guard let n = Int(value), (1...100).contains(n) else { throw BenchFailure("--seeds wants 1…100, got \(value)") }
                options.seeds = n
            case "--parallel":
                guard let n = Int(value), (1...8).contains(n) else { throw BenchFailure("--parallel wants 1…8, got \(value)") }
                options.parallel = n
            case "--condition":
                guard let condition = CallQualityCondition.named(value) else {
                    throw BenchFailure("unknown condition \(value)\n\(usage)")
                }
                options.conditions = [condition]
            case "--output":
                options.output = value
            default:
                throw BenchFailure("unknown option \(flag)\n\(usage)")
            }
        }
        return options
    }

    static func run(_ arguments: ArraySlice<String>) async throws {
        let options = try parse(arguments)
        BenchSystem.lineBufferStandardOutput()
        let directory = options.output
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("parley-call-quality-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { if options.output == nil { try? FileManager.default.removeItem(atPath: directory) } }
        let scorer = try PESQScorer.locate()
        let speech = try CallQualitySpeech.make(in: directory)
        print(String(format: "call-quality: Harvard list 2 by espeak-ng (male, female), %.1f s; %d seed(s) per condition, "
                     + "%d call(s) at once; load average %@", Double(speech.reference.count) / 16_000, options.seeds,
                     options.parallel, BenchSystem.loadAverage))
        let edges = CallQualityEdges()
        let calls = options.conditions.flatMap { condition in
            (1...options.seeds).map { CallQualityCall(condition: condition, seed: UInt64($0), speech: speech,
                                                      directory: directory, edges: edges) }
        }
        let cpuBefore = BenchSystem.cpuSeconds(pid: getpid()), started = ContinuousClock.now
        let results = try await runAll(calls, parallel: options.parallel)
        let wall = (ContinuousClock.now - started).seconds, cpu = BenchSystem.cpuSeconds(pid: getpid()) - cpuBefore
        let scores = try SpeechMaterial.pesq(results.map { (speech.reference, $0.recording) }, scorer: scorer)
        CallQualityReport.print(results: results, scores: scores, conditions: options.conditions)
        print(String(format: "%d calls in %.0f s: this process used %.0f CPU-seconds (%.2f of %d cores), load average now %@",
                     results.count, wall, cpu, cpu / wall, ProcessInfo.processInfo.activeProcessorCount, BenchSystem.loadAverage))
        if let output = options.output { print("recordings, microphone and reference in \(output)") }
    }

    /// Runs the calls, `parallel` at a time, and returns their results in the calls' order. The
    /// first failure cancels the rest and is thrown.
    static func runAll(_ calls: [CallQualityCall], parallel: Int) async throws -> [CallQualityResult] {
        try await withThrowingTaskGroup(of: (Int, CallQualityResult).self) { group in
            var results = [CallQualityResult?](repeating: nil, count: calls.count)
            var next = 0
            func startNext() {
                guard next < calls.count else { return }
                let index = next, call = calls[index]
                next += 1
                group.addTask { (index, try await call.run()) }
            }
            for _ in 0..<min(parallel, calls.count) { startNext() }
            while let (index, result) = try await group.next() {
                results[index] = result
                print(CallQualityReport.progressLine(result, done: results.count { $0 != nil }, of: calls.count))
                startNext()
            }
            return results.compactMap { $0 }
        }
    }
}
