import CVips
import Foundation

enum GeneratorFilters {
    static let all: [FilterDefinition] = []
}
