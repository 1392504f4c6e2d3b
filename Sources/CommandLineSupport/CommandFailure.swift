/// A command that cannot do what it was asked: printed as `Error: <message>` alone, exit
/// status 1. (ArgumentParser's `ValidationError` adds the usage text, which is for
/// mistakes in the command line itself.)
package struct CommandFailure: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
