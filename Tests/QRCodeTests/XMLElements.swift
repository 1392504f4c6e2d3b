import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The elements of an XML document in document order, read by Foundation's `XMLParser`, so a
/// document that is not well formed throws. (On Linux, `XMLDocument` finds no attribute by name
/// on an element in a default namespace, as every SVG element is.)
struct XMLElements {
    struct Element {
        let name: String
        let namespace: String?
        let attributes: [String: String]
    }

    /// The parser's error, or its position when it gave none.
    struct NotWellFormed: Error, CustomStringConvertible {
        let description: String
    }

    let all: [Element]

    init(parsing document: String) throws {
        let parser = XMLParser(data: Data(document.utf8))
        parser.shouldProcessNamespaces = true
        let collector = Collector()
        parser.delegate = collector
        guard parser.parse() else {
            throw NotWellFormed(
                description: parser.parserError.map { "\($0)" }
                    ?? "not well formed at line \(parser.lineNumber), column \(parser.columnNumber)"
            )
        }
        all = collector.elements
    }

    /// The document's root element.
    var root: Element? { all.first }
}

private final class Collector: NSObject, XMLParserDelegate {
    var elements: [XMLElements.Element] = []

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String]
    ) {
        elements.append(XMLElements.Element(name: elementName, namespace: namespaceURI, attributes: attributes))
    }
}
