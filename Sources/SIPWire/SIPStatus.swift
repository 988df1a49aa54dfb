/// Default reason phrases (RFC 3261 §21 and the later RFCs that added codes).
public enum SIPStatus {
    /// The registered reason phrase for `code`, or a class name (`Client Error`) when unregistered.
    public static func reasonPhrase(_ code: Int) -> String {
        if let phrase = phrases[code] { return phrase }
        switch code {
        case 100..<200: return "Provisional"
        case 200..<300: return "Success"
        case 300..<400: return "Redirection"
        case 400..<500: return "Client Error"
        case 500..<600: return "Server Error"
        default: return "Global Failure"
        }
    }

    private static let phrases: [Int: String] = [
        100: "Trying", 180: "Ringing", 181: "Call Is Being Forwarded", 182: "Queued", 183: "Session Progress",
        199: "Early Dialog Terminated", 200: "OK", 202: "Accepted", 204: "No Notification",
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Moved Temporarily", 305: "Use Proxy",
        380: "Alternative Service", 400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden",
        404: "Not Found", 405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required",
        408: "Request Timeout", 410: "Gone", 412: "Conditional Request Failed", 413: "Request Entity Too Large",
        414: "Request-URI Too Long", 415: "Unsupported Media Type", 416: "Unsupported URI Scheme",
        420: "Bad Extension", 421: "Extension Required", 422: "Session Interval Too Small", 423: "Interval Too Brief",
        439: "First Hop Lacks Outbound Support", 480: "Temporarily Unavailable",
        481: "Call/Transaction Does Not Exist", 482: "Loop Detected", 483: "Too Many Hops", 484: "Address Incomplete",
        485: "Ambiguous", 486: "Busy Here", 487: "Request Terminated", 488: "Not Acceptable Here", 489: "Bad Event",
        491: "Request Pending", 493: "Undecipherable", 500: "Server Internal Error", 501: "Not Implemented",
        502: "Bad Gateway", 503: "Service Unavailable", 504: "Server Time-out", 505: "Version Not Supported",
        513: "Message Too Large", 580: "Precondition Failure", 600: "Busy Everywhere", 603: "Decline",
        604: "Does Not Exist Anywhere", 606: "Not Acceptable", 607: "Unwanted",
    ]
}
