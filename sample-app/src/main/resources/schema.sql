create table if not exists flash_sale_stock (
    sku varchar(64) primary key,
    remaining int not null
);
create table if not exists flash_sale_order (
    id bigint auto_increment primary key,
    sku varchar(64) not null,
    created_at timestamp(3) not null
);
create table if not exists orders (
    id bigint auto_increment primary key,
    status varchar(16) not null,
    created_at timestamp(3) not null,
    payment_due_at timestamp(3) not null,
    paid_at timestamp(3),
    cancelled_at timestamp(3)
);
create table if not exists documents (
    id varchar(64) primary key,
    content clob not null,
    version int not null,
    updated_at timestamp(3) not null
);
create table if not exists report_runs (
    id bigint auto_increment primary key,
    instance varchar(64) not null,
    started_at timestamp(3) not null,
    finished_at timestamp(3) not null
);
