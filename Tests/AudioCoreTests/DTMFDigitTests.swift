import AudioCore
import Testing

@Suite struct DTMFDigitTests {
    @Test func eventCodesFollowRFC4733Table() {
        // RFC 4733 §3.2, Table 7: 0–9, then * # A B C D as 10–15.
        let table: [(Character, UInt8)] = [
            ("0", 0), ("1", 1), ("2", 2), ("3", 3), ("4", 4), ("5", 5), ("6", 6), ("7", 7), ("8", 8), ("9", 9),
            ("*", 10), ("#", 11), ("A", 12), ("B", 13), ("C", 14), ("D", 15),
        ]
        for (character, code) in table {
            let digit = DTMFDigit(character: character)
            #expect(digit?.eventCode == code)
            #expect(DTMFDigit(eventCode: code) == digit)
            #expect(digit?.character == character)
        }
        #expect(DTMFDigit.allCases.count == 16)
        #expect(DTMFDigit(eventCode: 16) == nil)
        #expect(DTMFDigit(character: "d") == .d)
        #expect(DTMFDigit(character: "E") == nil)
        #expect(DTMFDigit(character: "٣") == nil)   // an Arabic-Indic three is not a key
    }

    @Test func frequenciesFollowTheKeypadLayout() {
        // ITU-T Q.23: rows 697/770/852/941 Hz, columns 1209/1336/1477/1633 Hz.
        let expected: [Character: (Double, Double)] = [
            "1": (697, 1_209), "2": (697, 1_336), "3": (697, 1_477), "A": (697, 1_633),
            "4": (770, 1_209), "5": (770, 1_336), "6": (770, 1_477), "B": (770, 1_633),
            "7": (852, 1_209), "8": (852, 1_336), "9": (852, 1_477), "C": (852, 1_633),
            "*": (941, 1_209), "0": (941, 1_336), "#": (941, 1_477), "D": (941, 1_633),
        ]
        for digit in DTMFDigit.allCases {
            let pair = expected[digit.character]!
            #expect(digit.lowFrequency == pair.0 && digit.highFrequency == pair.1, "\(digit)")
            let position = digit.keypadPosition
            #expect(DTMFDigit(row: position.row, column: position.column) == digit)
        }
        #expect(DTMFDigit(row: 4, column: 0) == nil)
    }
}

@Suite struct DTMFDialStringTests {
    @Test func acceptsKeysAndPauses() throws {
        let dial = try DTMFDialString("12w*#0")
        #expect(dial.elements == [.digit(.one), .digit(.two), .pause, .digit(.star), .digit(.pound), .digit(.zero)])
        #expect(dial.description == "12w*#0")
        #expect(try DTMFDialString("").elements.isEmpty)
    }

    @Test(arguments: [
        ("12a3", "a", 2), ("A", "A", 0), ("555 1234", " ", 3), ("1-2", "-", 1), ("12W", "W", 2),
        ("٣", "٣", 0), ("9👍9", "👍", 1), ("+1", "+", 0), ("1,", ",", 1),
    ] as [(String, Character, Int)])
    func rejectsAnythingElseNamingCharacterAndPosition(input: String, character: Character, position: Int) {
        #expect(throws: DTMFDialStringError(character: character, position: position)) {
            try DTMFDialString(input)
        }
    }

    @Test func errorMessageNamesTheCharacterAndPosition() {
        let error = DTMFDialStringError(character: "x", position: 4)
        #expect(error.description == "invalid DTMF character 'x' at position 4 (allowed: 0-9, *, # and w for a pause)")
        #expect(DTMFDialStringError(character: "\n", position: 0).description.contains("'\\n'"))
    }
}
