extension StringProtocol {
    /// The text without HTTP's optional whitespace (spaces and tabs, RFC 9110 §5.6.3) at either end — what header
    /// values are compared without, and cheaper than Foundation's character-set trimming on every request.
    func trimmingOptionalWhitespace() -> Substring {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
