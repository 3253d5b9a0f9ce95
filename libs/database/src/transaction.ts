import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

declare const transactionBrand: unique symbol;

/**
 * One database transaction as services see it: a handle they pass from one repository call to the
 * next, with nothing on it to query through. Only repositories open it (`managerOf`).
 */
export type Transaction = { readonly [transactionBrand]: true };

/** The TypeORM manager behind a transaction: for repositories only (the lint keeps TypeORM there). */
export function managerOf(transaction: Transaction): EntityManager {
  return transaction as unknown as EntityManager;
}

export function asTransaction(manager: EntityManager): Transaction {
  return manager as unknown as Transaction;
}

/** Runs work in one transaction: committed when it resolves, rolled back when it throws. */
@Injectable()
export class Transactions {
  constructor(private readonly db: DataSource) {}

  run<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.db.transaction((manager) => work(asTransaction(manager)));
  }
}
