import Foundation
@testable import ServerMedia
import Testing

/// `<Say>` through espeak-ng. espeak-ng is a test dependency (scripts/install-deps installs it):
/// these tests fail, not skip, when it is missing.
@Suite struct MediaSpeechTests {
    @Test func speechIs48kHzAndAudible() async throws {
        let synthesizer = SpeechSynthesizer()
        #expect(synthesizer.isAvailable, "espeak-ng is not installed; run scripts/install-deps")
        let audio = try await synthesizer.synthesize("Thank you for calling. Please hold while we connect you.")
        #expect(audio.duration > 2 && audio.duration < 8)
        let level = audio.samples.withUnsafeBufferPointer { MediaAudio.levelDBFS($0) }
        #expect(level > -35)
        // Speech has energy in 20 ms frames spread over its length, with pauses between words.
        let frames = stride(from: 0, to: audio.samples.count - 960, by: 960).map { MediaSignal.rms(audio.samples[$0..<$0 + 960]) }
        #expect(frames.filter { $0 > 300 }.count > frames.count / 3)
        #expect(frames.contains { $0 < 50 })
    }

    @Test func speechIsCachedByTextVoiceAndLanguage() async throws {
        let synthesizer = SpeechSynthesizer()
        let man = try await synthesizer.synthesize("Goodbye.", voice: "man")
        let again = try await synthesizer.synthesize("Goodbye.", voice: "man")
        #expect(man == again)
        #expect(await synthesizer.cacheUsage.entries == 1)
        let woman = try await synthesizer.synthesize("Goodbye.", voice: "woman")
        let alice = try await synthesizer.synthesize("Goodbye.", voice: "alice", language: "en-GB")
        #expect(woman != man && alice != woman)
        #expect(await synthesizer.cacheUsage.entries == 3)
    }

    @Test func unknownLanguageFallsBackToEnglish() async throws {
        let synthesizer = SpeechSynthesizer()
        let audio = try await synthesizer.synthesize("Hello.", language: "xx-YY")
        #expect(audio.duration > 0.3)
    }

    @Test func concurrentRequestsShareOneRun() async throws {
        let synthesizer = SpeechSynthesizer()
        async let a = synthesizer.synthesize("One moment please.")
        async let b = synthesizer.synthesize("One moment please.")
        let (first, second) = try await (a, b)
        #expect(first == second && !first.samples.isEmpty)
    }

    @Test func missingSynthesizerThrowsSpeechUnavailable() async {
        let synthesizer = SpeechSynthesizer(configuration: .init(executablePath: "/nonexistent/espeak-ng"))
        #expect(!synthesizer.isAvailable)
        await #expect(throws: MediaError(.speechUnavailable, "espeak-ng is not installed (apt install espeak-ng); <Say> cannot speak")) {
            try await synthesizer.synthesize("Hello")
        }
    }

    @Test func overlongTextIsRefused() async {
        let synthesizer = SpeechSynthesizer(configuration: .init(maximumCharacters: 10))
        do {
            _ = try await synthesizer.synthesize("This sentence is too long.")
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .invalidInput)
        }
    }

    @Test func textStartingWithADashIsSpokenNotParsedAsAnOption() async throws {
        let audio = try await SpeechSynthesizer().synthesize("-v is not an option here")
        #expect(audio.duration > 0.5)
    }

    @Test(arguments: [
        ("man", nil, "", ["en-us"]),
        ("woman", "en-GB", "+f3", ["en-gb", "en", "en-us"]),
        ("alice", "fr-FR", "+f4", ["fr-fr", "fr", "en-us"]),
        ("Polly.Joanna", "en-US", "+f3", ["en-us"]),
        ("Polly.Matthew", "zh-CN", "", ["cmn", "en-us"]),
        (nil, "de; rm -rf", "", ["derm-rf", "derm", "en-us"]),
    ] as [(String?, String?, String, [String])])
    func voicesMapToEspeakNames(_ voice: String?, _ language: String?, _ variant: String, _ languages: [String]) {
        #expect(SpeechVoice.variant(for: voice) == variant)
        #expect(SpeechVoice.languages(for: language) == languages)
    }
}
