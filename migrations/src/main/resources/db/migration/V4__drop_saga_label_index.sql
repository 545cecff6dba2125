-- No query reads saga_instance by label (orders are listed by orders.status), yet the index was
-- written on every transition, since every transition changes the label. One index fewer to keep
-- up per saga write.
DROP INDEX IF EXISTS saga_label_idx;
