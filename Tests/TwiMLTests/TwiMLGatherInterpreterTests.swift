import Testing
@testable import TwiML

@Suite struct TwiMLGatherInterpreterTests {
    @Test func numDigitsEndsTheGatherAndTheFirstDigitStopsThePrompt() throws {
        var t = try interpreter("<Gather numDigits='3' action='/pin'><Say>Enter your PIN</Say><Say>again</Say></Gather><Say>no</Say>")
        #expect(t.start(now: 0) == [.answer, say("Enter your PIN")])
        #expect(t.nextDeadline == nil)
        #expect(t.handle(.digit("1"), now: 500) == [.stopMedia])
        #expect(t.nextDeadline == 5500)
        #expect(t.handle(.mediaFinished, now: 600) == [])
        #expect(t.handle(.digit("2"), now: 1000) == [])
        #expect(t.handle(.digit("x"), now: 1100) == [])
        #expect(t.handle(.digit("3"), now: 1500) == [.fetch(url: "https://app.example.com/pin", method: .post,
                                                           parameters: [("Digits", "123"), ("FinishedOnKey", "")])])
    }

    @Test func finishOnKeySubmitsToTheCurrentDocumentByDefault() throws {
        var t = try interpreter("<Gather/>")
        #expect(t.start(now: 0) == [.answer])
        #expect(t.handle(.digit("4"), now: 100) == [])
        #expect(t.handle(.digit("*"), now: 200) == [])
        #expect(t.handle(.digit("#"), now: 300) == [.fetch(url: appURL, method: .post,
                                                          parameters: [("Digits", "4*"), ("FinishedOnKey", "#")])])
    }

    @Test func timeoutStartsAfterThePromptsAndRestartsWithEachDigit() throws {
        var t = try interpreter("<Gather timeout='5' method='GET'><Say>Menu</Say></Gather>")
        #expect(t.start(now: 0) == [.answer, say("Menu")])
        #expect(t.handle(.mediaFinished, now: 2000) == [])
        #expect(t.nextDeadline == 7000)
        #expect(t.tick(now: 6999) == [])
        #expect(t.handle(.digit("7"), now: 6000) == [])
        #expect(t.nextDeadline == 11_000)
        #expect(t.tick(now: 10_999) == [])
        #expect(t.tick(now: 11_000) == [.fetch(url: appURL, method: .get, parameters: [("Digits", "7"), ("FinishedOnKey", "")])])
    }

    @Test func emptyResultFallsThroughUnlessActionOnEmptyResult() throws {
        var t = try interpreter("<Gather timeout='3' action='/g'/><Say>Goodbye</Say>")
        #expect(t.start(now: 0) == [.answer])
        #expect(t.nextDeadline == 3000)
        #expect(t.tick(now: 3000) == [say("Goodbye")])

        var onlyKey = try interpreter("<Gather/><Hangup/>")
        _ = onlyKey.start(now: 0)
        #expect(onlyKey.handle(.digit("#"), now: 10) == [.hangup])

        var always = try interpreter("<Gather timeout='1' actionOnEmptyResult='true' action='/g'/>")
        _ = always.start(now: 0)
        #expect(always.tick(now: 1000) == [.fetch(url: "https://app.example.com/g", method: .post,
                                                  parameters: [("Digits", ""), ("FinishedOnKey", "")])])
    }

    @Test func pausePromptsUseTheDeadlineAndDigitsCutThemShort() throws {
        var t = try interpreter("<Gather finishOnKey='' numDigits='2'><Pause length='2'/><Play>menu.wav</Play></Gather>")
        #expect(t.start(now: 0) == [.answer])
        #expect(t.nextDeadline == 2000)
        #expect(t.tick(now: 2000) == [.play(url: "https://app.example.com/voice/menu.wav", loop: 1)])
        #expect(t.handle(.mediaFinished, now: 4000) == [])
        #expect(t.nextDeadline == 9000)

        var early = try interpreter("<Gather finishOnKey=''><Pause length='2'/><Say>x</Say></Gather>")
        _ = early.start(now: 0)
        #expect(early.handle(.digit("#"), now: 500) == [])
        #expect(early.nextDeadline == 5500)
        #expect(early.tick(now: 2000) == [])
        #expect(early.tick(now: 5500) == [.fetch(url: appURL, method: .post, parameters: [("Digits", "#"), ("FinishedOnKey", "")])])
    }

    @Test func speechOnlyGatherIgnoresDigits() throws {
        var t = try interpreter("<Gather input='speech' timeout='2'/><Say>done</Say>")
        _ = t.start(now: 0)
        #expect(t.handle(.digit("1"), now: 100) == [])
        #expect(t.tick(now: 2000) == [say("done")])
    }
}
