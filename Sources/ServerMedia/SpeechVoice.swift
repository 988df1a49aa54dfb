/// Maps TwiML `<Say voice language>` onto an espeak-ng voice name (`<language>[+variant]`).
///
/// - `man` (TwiML's default) is espeak's default male voice; `woman` the `f3` variant; `alice`
///   the `f4` variant, so the three sound different.
/// - `Polly.*` and `Google.*` voices: names in `femaleNames` (and Google voices, whose names do
///   not say) use `f3`, the others the male voice.
/// - The language is the BCP 47 tag lowercased (`en-US` → `en-us`), with the Chinese tags renamed
///   to espeak's (`zh-CN` → `cmn`, `zh-HK` → `yue`, `zh-TW` → `cmn`); anything but letters, digits
///   and `-` is dropped. `en-us` when absent. The synthesizer retries with the primary subtag and
///   then `en-us` when espeak-ng has no such voice.
enum SpeechVoice {
    static let defaultLanguage = "en-us"

    static let femaleNames: Set<String> = [
        "joanna", "salli", "kendra", "kimberly", "ivy", "ruth", "danielle", "amy", "emma", "olivia", "nicole",
        "raveena", "aditi", "kajal", "celine", "lea", "vicki", "marlene", "conchita", "lucia", "penelope",
        "mia", "lupe", "camila", "vitoria", "ines", "carla", "bianca", "mizuki", "seoyeon", "zhiyu", "tatyana",
        "astrid", "liv", "naja", "ewa", "maja", "carmen", "filiz", "gwyneth", "lotte", "chantal", "aria", "ayanda",
    ]

    /// The variant suffix for a TwiML voice name.
    static func variant(for voice: String?) -> String {
        guard let voice = voice?.lowercased(), !voice.isEmpty else { return "" }
        switch voice {
        case "man": return ""
        case "woman": return "+f3"
        case "alice": return "+f4"
        default:
            if voice.hasPrefix("google.") { return "+f3" }
            let name = voice.split(separator: ".").dropFirst().first.map { String($0.split(separator: "-").first ?? $0) } ?? voice
            return femaleNames.contains(name) ? "+f3" : ""
        }
    }

    /// espeak language names to try, best first: the full tag, its primary subtag, `en-us`.
    static func languages(for language: String?) -> [String] {
        let cleaned = String((language ?? "").lowercased().replacingUnderscores().filter {
            $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-")
        }.prefix(32))
        let renamed: String = switch cleaned {
        case "": defaultLanguage
        case "zh-cn", "zh-tw", "zh", "cmn-cn": "cmn"
        case "zh-hk", "yue-hk": "yue"
        case "nb-no", "no-no": "nb"
        default: cleaned
        }
        var result = [renamed]
        if renamed != defaultLanguage, let primary = renamed.split(separator: "-").first.map(String.init), primary != renamed {
            result.append(primary)
        }
        if !result.contains(defaultLanguage) { result.append(defaultLanguage) }
        return result
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String { String(map { $0 == "_" ? "-" : $0 }) }
}
