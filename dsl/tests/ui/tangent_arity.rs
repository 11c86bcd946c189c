use fesd_dsl::cls_model;

cls_model! {
    Block {
        q { x, y }
        v { vx, vy }
        contacts { floor: gap y, restitution 0.0, friction 0.3 along [1.0, 0.0, 0.0] }
    }
}

fn main() {}
