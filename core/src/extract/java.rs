//! Extraction for java (being written).

use tree_sitter::Node;

use super::Builder;

pub(crate) fn extract(_b: &mut Builder, _root: Node) {}

#[cfg(test)]
mod tests {
    #[test]
    fn dump() {
        let src = r#"
package a.b;
import static a.b.C.*;
import a.b.C;
@interface Ann { int value() default 1; }
class X<T extends Base<T>> extends a.b.Base<T> implements I, J<K> {
  X() { super(1); this(2); }
  void m(final T t, int... xs) throws IOException {
    super.m(); A.super.m(); A.this.x = 1; var o = new Order(); Foo::bar; this::m; Foo::new;
    x[0].y.z(); f().g; Outer.Inner i; Outer<String>.Inner j; int[] arr = new int[3];
    for (Order o : orders) {} l = (a, b) -> a; l2 = (Order a) -> a; l3 = a -> a;
    try (var r = open()) {} catch (IOException | RuntimeException e) {}
    if (o instanceof Order ord) {} outer: for(;;) { break outer; }
    String s = Foo.class.getName(); new Outer.Inner(); new a.b.C<D>() {};
    switch (o) { case Point(int x, int y) -> 1; case Order q -> 2; default -> 3; }
  }
  @Override @Foo.Bar(x = 1) public int y, z = 2;
  record R(int a) {}
  enum E { A(1), B { void f(){} }; E(int x) {} }
}
"#;
        let mut p = tree_sitter::Parser::new();
        p.set_language(&crate::lang::Language::Java.grammar()).unwrap();
        let t = p.parse(src, None).unwrap();
        fn pr(n: tree_sitter::Node, src: &str, d: usize) {
            let mut c = n.walk();
            let mut i = 0;
            for ch in n.children(&mut c) {
                let f = n.field_name_for_child(i as u32).map(|f| format!("{f}: ")).unwrap_or_default();
                i += 1;
                if !ch.is_named() { continue; }
                let txt = if ch.child_count() == 0 { format!(" `{}`", &src[ch.byte_range()]) } else { String::new() };
                println!("{}{}{}{}", "  ".repeat(d), f, ch.kind(), txt);
                pr(ch, src, d + 1);
            }
        }
        pr(t.root_node(), src, 0);
    }
}
